public import Annotations
import WireJSON

/// A cluster's identity: the place it stands for, not a number handed out. The grid cell at a zoom
/// and cell size, the clustering identifier, and the filters that chose the members. The same
/// place gives the same id on every pan and after writes elsewhere; `GET /v1/clusters/{id}`
/// recomputes it from the id alone.
///
/// Text form: base64url (no padding) of version 1, zoom, cell-size exponent, column and row
/// (big-endian UInt32), flags, then the minimum priority, the maximum zoom, the identifier, the
/// kinds, the CQL2 filter (its compact CQL2-JSON) and the weight's property when present.
public struct ClusterID: Hashable, Sendable, CustomStringConvertible {
    public var grid: ThinningGrid
    public var column: Int
    public var row: Int
    /// What chose the members besides the place; nil when nothing did (most answers). One
    /// instance serves every cluster of a thin answer's group, so a cluster carries one
    /// reference, or none, instead of four.
    private var scope: Scope?

    /// The group: nil for annotations without a clustering identifier.
    public var clusteringIdentifier: String? {
        get { scope?.clusteringIdentifier }
        set { update { $0.clusteringIdentifier = newValue } }
    }
    /// The kinds filter that chose the members (nil: all kinds).
    public var kinds: Set<String>? {
        get { scope?.kinds }
        set { update { $0.kinds = newValue } }
    }
    /// The display-priority filter that chose the members.
    public var minDisplayPriority: Int? {
        get { scope?.minDisplayPriority }
        set { update { $0.minDisplayPriority = newValue } }
    }
    /// The CQL2 filter that chose the members.
    public var filter: Filter? {
        get { scope?.filter }
        set { update { $0.filter = newValue } }
    }
    /// The last zoom that clusters (0…21; nil: every zoom does): caps the cluster's expansion zoom.
    public var maxZoom: Int? {
        get { scope?.maxZoom }
        set { update { $0.maxZoom = newValue } }
    }
    /// The numeric property that weighs the members (their centroid is its weighted mean).
    public var weight: String? {
        get { scope?.weight }
        set { update { $0.weight = newValue } }
    }

    private mutating func update(_ change: (inout Scope.Fields) -> Void) {
        var fields = scope?.fields ?? Scope.Fields()
        change(&fields)
        scope = Scope.make(fields)
    }

    /// The clustering identifier, filters and options of an id, compared by value.
    final class Scope: Hashable, Sendable {
        struct Fields: Hashable {
            var clusteringIdentifier: String?
            var kinds: Set<String>?
            var minDisplayPriority: Int?
            var filter: Filter?
            var maxZoom: Int?
            var weight: String?
        }

        let fields: Fields
        var clusteringIdentifier: String? { fields.clusteringIdentifier }
        var kinds: Set<String>? { fields.kinds }
        var minDisplayPriority: Int? { fields.minDisplayPriority }
        var filter: Filter? { fields.filter }
        var maxZoom: Int? { fields.maxZoom }
        var weight: String? { fields.weight }

        private init(_ fields: Fields) { self.fields = fields }

        /// The scope of these, nil when all are nil.
        static func make(_ fields: Fields) -> Scope? {
            fields == Fields() ? nil : Scope(fields)
        }

        static func == (a: Scope, b: Scope) -> Bool { a === b || a.fields == b.fields }

        func hash(into hasher: inout Hasher) { hasher.combine(fields) }
    }

    /// The longest a CQL2 filter may be, as compact JSON, to be named by a cluster id.
    public static let maxFilterBytes = 8_192

    public init(
        grid: ThinningGrid, column: Int, row: Int, clusteringIdentifier: String?, kinds: Set<String>?, minDisplayPriority: Int?, filter: Filter? = nil,
        maxZoom: Int? = nil, weight: String? = nil
    ) {
        self.init(grid: grid, column: column, row: row, scope: Scope.make(Scope.Fields(
            clusteringIdentifier: clusteringIdentifier, kinds: kinds, minDisplayPriority: minDisplayPriority, filter: filter,
            maxZoom: maxZoom, weight: weight)))
    }

    init(grid: ThinningGrid, column: Int, row: Int, scope: Scope?) {
        (self.grid, self.column, self.row, self.scope) = (grid, column, row, scope)
    }

    private enum Flag {
        static let identifier: UInt8 = 1, kinds: UInt8 = 2, priority: UInt8 = 4, filter: UInt8 = 8, maxZoom: UInt8 = 16, weight: UInt8 = 32
        static let all: UInt8 = 63
    }

    public var description: String {
        var bytes: [UInt8] = [1, UInt8(grid.zoom), UInt8(grid.cellSizeExponent)]
        for value in [column, row] { for shift in [24, 16, 8, 0] { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) } }
        var flags: UInt8 = 0
        if clusteringIdentifier != nil { flags |= Flag.identifier }
        if kinds != nil { flags |= Flag.kinds }
        if minDisplayPriority != nil { flags |= Flag.priority }
        if filter != nil { flags |= Flag.filter }
        if maxZoom != nil { flags |= Flag.maxZoom }
        if weight != nil { flags |= Flag.weight }
        bytes.append(flags)
        if let minDisplayPriority { bytes += [UInt8(minDisplayPriority >> 8), UInt8(minDisplayPriority & 0xFF)] }
        if let maxZoom { bytes.append(UInt8(maxZoom)) }
        func text(_ string: String) {
            let utf8 = Array(string.utf8)
            bytes += [UInt8(utf8.count >> 8), UInt8(utf8.count & 0xFF)] + utf8
        }
        if let clusteringIdentifier { text(clusteringIdentifier) }
        if let kinds {
            bytes += [UInt8(kinds.count >> 8), UInt8(kinds.count & 0xFF)]
            for kind in kinds.sorted() { text(kind) }
        }
        if let filter { text(filter.json.canonicalText) }
        if let weight { text(weight) }
        return Base64URL.encode(bytes)
    }

    /// The longest id text read (the contract's `maxLength`): room for the longest filters a thin
    /// request may carry (16 kinds and an identifier of 1 024 bytes each, a filter of
    /// ``maxFilterBytes``, base64url).
    public static let maxTextLength = 36_864

    /// The id a text names, or nil when it is not one this server issues.
    public init?(_ text: String) {
        guard text.utf8.count <= Self.maxTextLength, let bytes = Base64URL.decode(text) else { return nil }
        var reader = ByteReader(bytes: bytes)
        guard reader.byte() == 1, let zoom = reader.byte(), let exponent = reader.byte(),
              ThinningGrid.zoomLevels.contains(Int(zoom)), ThinningGrid.cellSizeExponents.contains(Int(exponent)),
              let column = reader.uint32(), let row = reader.uint32(), let flags = reader.byte(), flags & ~Flag.all == 0
        else { return nil }
        grid = ThinningGrid(zoom: Int(zoom), cellSizeExponent: Int(exponent))
        guard column < grid.cellsPerAxis, row < grid.cellsPerAxis else { return nil }
        self.column = column
        self.row = row
        if flags & Flag.priority != 0 {
            guard let priority = reader.uint16(), priority <= AnnotationContent.requiredDisplayPriority else { return nil }
            minDisplayPriority = priority
        }
        if flags & Flag.maxZoom != 0 {
            // A cluster exists only up to the last zoom that clusters, which is below the last grid.
            guard let zoom = reader.byte(), Int(zoom) < ThinningGrid.zoomLevels.upperBound, grid.zoom <= Int(zoom) else { return nil }
            maxZoom = Int(zoom)
        }
        if flags & Flag.identifier != 0 {
            guard let identifier = reader.text() else { return nil }
            clusteringIdentifier = identifier
        }
        if flags & Flag.kinds != 0 {
            guard let count = reader.uint16() else { return nil }
            var kinds = Set<String>()
            for _ in 0..<count {
                guard let kind = reader.text() else { return nil }
                kinds.insert(kind)
            }
            self.kinds = kinds
        }
        if flags & Flag.filter != 0 {
            guard let text = reader.text(), text.utf8.count <= Self.maxFilterBytes,
                  let json = Array(text.utf8).withUnsafeBytes({ JSONValueParser.parse($0) }),
                  let filter = try? Filter(json: json) else { return nil }
            self.filter = filter
        }
        if flags & Flag.weight != 0 {
            // A property name, as a request may name it.
            guard let weight = reader.text(), !weight.isEmpty, weight.unicodeScalars.count <= AnnotationContent.Limits.maxKeyLength else { return nil }
            self.weight = weight
        }
        guard reader.atEnd, description == text else { return nil }
    }
}

private struct ByteReader {
    var bytes: [UInt8]
    var position = 0

    var atEnd: Bool { position == bytes.count }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint16() -> Int? {
        guard let high = byte(), let low = byte() else { return nil }
        return Int(high) << 8 | Int(low)
    }

    mutating func uint32() -> Int? {
        guard let high = uint16(), let low = uint16() else { return nil }
        return high << 16 | low
    }

    mutating func text() -> String? {
        guard let count = uint16(), position + count <= bytes.count else { return nil }
        defer { position += count }
        return String(validating: bytes[position..<position + count], as: UTF8.self)
    }
}

/// RFC 4648 §5 base64url without padding.
public enum Base64URL {
    /// Whether a byte is one of base64url's 64 characters.
    public static func isAlphabet(_ byte: UInt8) -> Bool { values[Int(byte)] >= 0 }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = Int8(value) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 3, bytes.count)]
            var word = 0
            for (k, byte) in chunk.enumerated() { word |= Int(byte) << (16 - 8 * k) }
            for k in 0...chunk.count { out.append(alphabet[(word >> (18 - 6 * k)) & 63]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var word = 0, bits = 0
        for character in characters {
            let value = values[Int(character)]
            guard value >= 0 else { return nil }
            word = word << 6 | Int(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((word >> bits) & 0xFF))
                word &= (1 << bits) - 1
            }
        }
        // Leftover bits must be zero, so every text has one spelling.
        guard word & ((1 << bits) - 1) == 0 else { return nil }
        return out
    }
}
