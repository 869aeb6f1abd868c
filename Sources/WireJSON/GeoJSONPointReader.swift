/// Reads a GeoJSON (RFC 7946) FeatureCollection of Point features straight off the bytes, with no
/// tree for the parts whose shape is known (collection, feature, geometry). What a feature's
/// `properties` mean is the caller's: it reads them with the parser standing on the value.
///
/// It takes only the well-formed case: any other type, a repeated member (anywhere), a geometry that is not
/// a Point of 2 or 3 numbers, or a `properties` or feature the caller declines gives false, and
/// the caller reads the body again through ``JSONValueParser/parse(_:)`` to explain the errors.
public enum GeoJSONPointReader {
    /// One feature as read: its position and what the caller made of its `properties` (nil when
    /// the feature has none or they are null).
    public struct Feature<Properties> {
        public var longitude: Double
        public var latitude: Double
        public var properties: Properties?
        /// The feature's `id` when it is a string (a number id is read and ignored).
        public var id: String?

        @usableFromInline
        init(longitude: Double, latitude: Double, properties: Properties?, id: String?) {
            self.longitude = longitude
            self.latitude = latitude
            self.properties = properties
            self.id = id
        }
    }

    /// Reads the collection, calling `feature` for each feature in order; false when the body is
    /// anything else or `readProperties` or `feature` declines (what was handed out must then be
    /// discarded).
    /// - Parameters:
    ///   - readProperties: reads a non-null `properties` value (an object or anything else), nil to decline.
    ///   - feature: takes one feature, false to decline.
    @inlinable
    public static func read<Properties>(
        _ bytes: UnsafeRawBufferPointer,
        readProperties: (inout JSONValueParser) -> Properties?,
        feature: (Feature<Properties>) -> Bool
    ) -> Bool {
        var parser = JSONValueParser(bytes: bytes)
        var sawType = false, sawFeatures = false
        var others = Set<String>()
        let complete = parser.members { key, parser in
            switch key {
            case "type":
                guard !sawType, parser.stringValue() == "FeatureCollection" else { return false }
                sawType = true
            case "features":
                guard !sawFeatures, parser.consume(UInt8(ascii: "[")) else { return false }
                sawFeatures = true
                if parser.consume(UInt8(ascii: "]")) { return true }
                repeat {
                    guard let read = readFeature(&parser, readProperties), feature(read) else { return false }
                } while parser.consume(UInt8(ascii: ","))
                return parser.consume(UInt8(ascii: "]"))
            default:
                return others.insert(key).inserted && parser.value() != nil  // bbox, name, crs, …: read and ignored
            }
            return true
        }
        return complete && sawType && sawFeatures && parser.atEnd()
    }

    /// One feature: `type` "Feature", a Point geometry, optional properties; other members ignored.
    @usableFromInline
    static func readFeature<Properties>(
        _ parser: inout JSONValueParser, _ readProperties: (inout JSONValueParser) -> Properties?
    ) -> Feature<Properties>? {
        var sawType = false, sawProperties = false
        var others = Set<String>()
        var position: (Double, Double)?
        var properties: Properties?
        var id: String?
        let complete = parser.members { key, parser in
            switch key {
            case "type":
                guard !sawType, parser.stringValue() == "Feature" else { return false }
                sawType = true
            case "geometry":
                guard position == nil else { return false }
                position = point(&parser)
                return position != nil
            case "properties":
                guard !sawProperties else { return false }
                sawProperties = true
                if parser.peek() == UInt8(ascii: "n") { return parser.value() == .null }
                properties = readProperties(&parser)
                return properties != nil
            case "id":
                guard others.insert(key).inserted, let value = parser.value() else { return false }
                if case .string(let text) = value { id = text }
            default:
                return others.insert(key).inserted && parser.value() != nil  // bbox, foreign members
            }
            return true
        }
        guard complete, sawType, let position else { return nil }
        return Feature(longitude: position.0, latitude: position.1, properties: properties, id: id)
    }

    /// `{"type":"Point","coordinates":[lon,lat(,alt)]}` as (longitude, latitude).
    @usableFromInline
    static func point(_ parser: inout JSONValueParser) -> (Double, Double)? {
        var isPoint = false
        var numbers: [Double]?
        var others = Set<String>()
        let complete = parser.members { key, parser in
            switch key {
            case "type":
                guard !isPoint, parser.stringValue() == "Point" else { return false }
                isPoint = true
            case "coordinates":
                guard numbers == nil, parser.consume(UInt8(ascii: "[")) else { return false }
                var read: [Double] = []
                repeat {
                    guard let number = parser.number() else { return false }
                    read.append(number)
                } while parser.consume(UInt8(ascii: ","))
                guard parser.consume(UInt8(ascii: "]")), (2...3).contains(read.count) else { return false }
                numbers = read
            default:
                return others.insert(key).inserted && parser.value() != nil
            }
            return true
        }
        guard complete, isPoint, let numbers else { return nil }
        return (numbers[0], numbers[1])
    }
}
