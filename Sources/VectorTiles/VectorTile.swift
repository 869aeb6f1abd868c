/// A Mapbox Vector Tile (specification 2.1) of point features, written without a protobuf
/// library: a tile is a few nested messages, so a small encoder is less to build and to keep
/// than generated code and its runtime.
///
/// ```swift
/// var layer = VectorTileLayer(name: "clusters")
/// layer.addPoint(id: 7, x: 2048, y: 1024, properties: [("count", .int(12))])
/// let bytes = VectorTile(layers: [layer]).encoded()
/// ```
public struct VectorTile: Sendable {
    /// Tile coordinates run 0…extent across the tile, y down.
    public static let defaultExtent: UInt32 = 4096

    public var layers: [VectorTileLayer]

    public init(layers: [VectorTileLayer]) {
        self.layers = layers
    }

    /// The tile's bytes; layers without features are left out (an empty tile is zero bytes).
    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        for layer in layers where !layer.isEmpty {
            writer.field(Field.tileLayers, bytes: layer.encoded())
        }
        return writer.bytes
    }

    /// Field numbers of `vector_tile.proto` 2.1.
    enum Field {
        static let tileLayers: UInt64 = 3
        static let layerName: UInt64 = 1, layerFeatures: UInt64 = 2, layerKeys: UInt64 = 3, layerValues: UInt64 = 4
        static let layerExtent: UInt64 = 5, layerVersion: UInt64 = 15
        static let featureID: UInt64 = 1, featureTags: UInt64 = 2, featureType: UInt64 = 3, featureGeometry: UInt64 = 4
        static let valueString: UInt64 = 1, valueDouble: UInt64 = 3, valueUInt: UInt64 = 5, valueSInt: UInt64 = 6, valueBool: UInt64 = 7
    }
}

/// A property value of a feature.
public enum VectorTileValue: Hashable, Sendable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    fileprivate func encoded() -> [UInt8] {
        typealias Field = VectorTile.Field
        var writer = ProtobufWriter()
        switch self {
        case .string(let text): writer.field(Field.valueString, string: text)
        case .int(let value) where value >= 0: writer.field(Field.valueUInt, varint: UInt64(value))
        case .int(let value): writer.field(Field.valueSInt, varint: ProtobufWriter.zigzag(value))
        case .double(let value): writer.field(Field.valueDouble, double: value)
        case .bool(let value): writer.field(Field.valueBool, varint: value ? 1 : 0)
        }
        return writer.bytes
    }
}

/// One named layer: its features, and the key and value tables their tags index into.
public struct VectorTileLayer: Sendable {
    public let name: String
    public let extent: UInt32
    private var keys = NumberedTable<String>()
    private var values = NumberedTable<VectorTileValue>()
    private var features = ProtobufWriter()
    public private(set) var count = 0

    public init(name: String, extent: UInt32 = VectorTile.defaultExtent) {
        self.name = name
        self.extent = extent
    }

    public var isEmpty: Bool { count == 0 }

    /// A point feature at tile coordinates (`x`, `y`), which may lie past the extent (a buffer).
    public mutating func addPoint(id: UInt64, x: Int32, y: Int32, properties: [(String, VectorTileValue)]) {
        typealias Field = VectorTile.Field
        var tags: [UInt32] = []
        tags.reserveCapacity(properties.count * 2)
        for (key, value) in properties {
            tags.append(keys.number(of: key))
            tags.append(values.number(of: value))
        }
        var feature = ProtobufWriter()
        feature.field(Field.featureID, varint: id)
        if !tags.isEmpty { feature.field(Field.featureTags, packed: tags) }
        feature.field(Field.featureType, varint: GeometryCommand.pointType)
        feature.field(Field.featureGeometry, packed: GeometryCommand.point(x: x, y: y))
        features.field(Field.layerFeatures, bytes: feature.bytes)
        count += 1
    }

    fileprivate func encoded() -> [UInt8] {
        typealias Field = VectorTile.Field
        var writer = ProtobufWriter()
        writer.field(Field.layerVersion, varint: 2)
        writer.field(Field.layerName, string: name)
        writer.append(features.bytes)
        for key in keys.elements { writer.field(Field.layerKeys, string: key) }
        for value in values.elements { writer.field(Field.layerValues, bytes: value.encoded()) }
        writer.field(Field.layerExtent, varint: UInt64(extent))
        return writer.bytes
    }
}

/// Elements numbered in the order they were first seen: a layer's key and value tables, which
/// features' tags index into.
struct NumberedTable<Element: Hashable & Sendable>: Sendable {
    private(set) var elements: [Element] = []
    private var numbers: [Element: UInt32] = [:]

    mutating func number(of element: Element) -> UInt32 {
        if let known = numbers[element] { return known }
        let number = UInt32(elements.count)
        elements.append(element)
        numbers[element] = number
        return number
    }
}

/// Geometry commands (specification 4.3): a command integer `id | count << 3` followed by
/// zigzag-encoded parameters.
enum GeometryCommand {
    static let pointType: UInt64 = 1
    static let moveTo: UInt32 = 1

    /// One MoveTo of one point, relative to the cursor's start (0, 0).
    static func point(x: Int32, y: Int32) -> [UInt32] {
        [moveTo | 1 << 3, UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(Int64(x))), UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(Int64(y)))]
    }
}
