import MapGeometry

/// A CQL2 `like` pattern, read once into its literal pieces: `%` matches any run of characters
/// (a run of `%` is one), `_` exactly one, `\` makes the next character literal. Characters are
/// Unicode code points; matching is case-sensitive.
///
/// Matching never backtracks: the piece before the first `%` must start the text, the piece
/// after the last `%` must end it, and every piece between is taken at its leftmost place after
/// the one before (greedy, which is exact for `%`-separated pieces). Each text position is tried
/// at most once per piece, so a match costs at most text length × pattern length comparisons,
/// whatever the pattern (`%%%…%b` is one piece, `b`).
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
        var offset = start
        while offset + piece.count <= end {
            if Self.piece(piece, matches: text, at: offset) { return offset }
            offset += 1
        }
        return nil
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
