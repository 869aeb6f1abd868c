import MapGeometry

/// A CQL2 `like` pattern, read once into its literal pieces: `%` matches any run of characters
/// (a run of `%` is one), `_` exactly one, `\` makes the next character literal. Characters are
/// Unicode code points; matching is case-sensitive.
///
/// Matching never backtracks: the piece before the first `%` must start the text, the piece
/// after the last `%` must end it, and every piece between is taken at its leftmost place after
/// the one before (greedy, which is exact for `%`-separated pieces). The leftmost place is found
/// by a bit-parallel scan (shift-and, `_` a position every character fits), one pass over the
/// text for all the middle pieces together: a match costs at most text length × ⌈longest piece /
/// 64⌉ steps (at most 4, patterns being at most ``maxLength``), whatever the pattern
/// (`%%%…%b` is one piece, `b`; `%aaa…ab%` one scan).
public struct LikePattern: Hashable, Sendable {
    /// Most code points a pattern may have (``Filter`` readers refuse longer ones).
    public static let maxLength = 256

    /// One position of a piece: a given code point, or any one (`_`).
    enum Token: Hashable, Sendable {
        case scalar(Unicode.Scalar)
        case any
    }

    /// The pattern as written.
    public let source: String
    /// The literal pieces between runs of `%`, in order, none empty.
    let pieces: [[Token]]
    /// Whether the pattern starts (ends) with `%`: the first (last) piece may then start (end) anywhere.
    let openStart: Bool, openEnd: Bool

    public init(_ source: String) {
        self.source = source
        var pieces: [[Token]] = [[]]
        var openStart = false, openEnd = false
        var escaped = false
        var sawAny = false
        for scalar in source.unicodeScalars {
            openEnd = false
            if escaped {
                pieces[pieces.count - 1].append(.scalar(scalar))
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if scalar == "%" {
                if !sawAny { openStart = true }
                if !pieces[pieces.count - 1].isEmpty { pieces.append([]) }
                openEnd = true
            } else {
                pieces[pieces.count - 1].append(scalar == "_" ? .any : .scalar(scalar))
            }
            sawAny = true
        }
        // A trailing lone `\` stands for itself.
        if escaped { pieces[pieces.count - 1].append(.scalar("\\")) }
        self.pieces = pieces.filter { !$0.isEmpty }
        self.openStart = openStart
        self.openEnd = openEnd
    }

    /// Code points in the pattern.
    public var length: Int { source.unicodeScalars.count }

    /// Whether `text` matches the whole pattern.
    public func matches(_ text: String) -> Bool {
        let text = Array(text.unicodeScalars)
        var pieces = pieces[...]
        guard openStart || openEnd || pieces.count > 1 else {
            // No `%`: the one piece (or none) is the whole text.
            let piece = pieces.first ?? []
            return text.count == piece.count && Self.piece(piece, matches: text, at: 0)
        }
        var start = 0, end = text.count
        if !openStart, let first = pieces.first {
            guard Self.piece(first, matches: text, at: 0) else { return false }
            start = first.count
            pieces = pieces.dropFirst()
        }
        if !openEnd, let last = pieces.last {
            guard end - last.count >= start, Self.piece(last, matches: text, at: end - last.count) else { return false }
            end -= last.count
            pieces = pieces.dropLast()
        }
        for piece in pieces {
            guard let found = Self.leftmost(piece, in: text, from: start, before: end) else { return false }
            start = found + piece.count
        }
        return true
    }

    /// Whether `piece` matches `text` from `offset` (which leaves room for it).
    private static func piece(_ piece: [Token], matches text: [Unicode.Scalar], at offset: Int) -> Bool {
        guard offset >= 0, offset + piece.count <= text.count else { return false }
        for (index, token) in piece.enumerated() {
            if case .scalar(let scalar) = token, text[offset + index] != scalar { return false }
        }
        return true
    }

    /// The first offset at or after `start` where `piece` matches and ends by `end`.
    private static func leftmost(_ piece: [Token], in text: [Unicode.Scalar], from start: Int, before end: Int) -> Int? {
        var scan = ShiftAnd(piece)
        var offset = start
        while offset < end {
            if scan.step(text[offset]) { return offset + 1 - piece.count }
            offset += 1
        }
        return nil
    }
}

/// Shift-and over one piece of up to ``LikePattern/maxLength`` positions: bit i of the state says
/// that the piece's first i + 1 positions match the text just read.
private struct ShiftAnd {
    static let words = (LikePattern.maxLength + 63) / 64
    /// Positions each code point of the piece fits (its own, and every `_`).
    private var masks: [Unicode.Scalar: [UInt64]] = [:]
    /// Positions any other code point fits: the `_`s.
    private var anyMask: [UInt64]
    private var state: [UInt64]
    private let last: (word: Int, bit: UInt64)
    private let used: Int

    init(_ piece: [LikePattern.Token]) {
        used = (piece.count + 63) / 64
        anyMask = Array(repeating: 0, count: used)
        state = Array(repeating: 0, count: used)
        for (index, token) in piece.enumerated() where token == .any { anyMask[index / 64] |= 1 << UInt64(index % 64) }
        for (index, token) in piece.enumerated() {
            guard case .scalar(let scalar) = token else { continue }
            masks[scalar, default: anyMask][index / 64] |= 1 << UInt64(index % 64)
        }
        last = ((piece.count - 1) / 64, 1 << UInt64((piece.count - 1) % 64))
    }

    /// Reads one code point; true when the whole piece ends here.
    mutating func step(_ scalar: Unicode.Scalar) -> Bool {
        let mask = masks[scalar] ?? anyMask
        var carry: UInt64 = 1  // a match may start at every position
        for word in 0..<used {
            let next = state[word] >> 63
            state[word] = ((state[word] << 1) | carry) & mask[word]
            carry = next
        }
        return state[last.word] & last.bit != 0
    }
}

extension LikePattern {
    /// The pattern `source`, refused at `path` when longer than ``maxLength`` code points.
    init(checking source: String, at path: [String]) throws(FieldError) {
        guard source.unicodeScalars.count <= Self.maxLength else {
            throw FieldError(path: path, message: "a like pattern has at most \(Self.maxLength) characters, got \(source.unicodeScalars.count)")
        }
        self.init(source)
    }
}
