/// The contract's `TrackFeature` (`typeOverrides`): a GeoJSON Feature whose `geometry` member is
/// always written, `null` for a range with no fixes (RFC 7946 §3.2). The generated type would
/// leave a nil geometry out, and a Feature without `geometry` is not GeoJSON.
package struct TrackFeatureBody: Codable, Hashable, Sendable {
    /// The line: each position `[longitude, latitude]` in degrees.
    package enum Geometry: Hashable, Sendable {
        case lineString([[Double]])
        case multiLineString([[[Double]]])
    }

    /// `properties`: the times of the positions and what was asked and read.
    package struct Properties: Codable, Hashable, Sendable {
        package var deviceId: String
        /// RFC 3339 times of the positions, one array per part (a LineString writes its only one flat).
        package var times: [[String]]
        package var fixCount: Int
        package var keptCount: Int
        /// Metres.
        package var tolerance: Double
        /// Seconds.
        package var gap: Double
        package var nextFrom: String?

        package init(deviceId: String, times: [[String]], fixCount: Int, keptCount: Int, tolerance: Double, gap: Double, nextFrom: String?) {
            (self.deviceId, self.times, self.fixCount, self.keptCount) = (deviceId, times, fixCount, keptCount)
            (self.tolerance, self.gap, self.nextFrom) = (tolerance, gap, nextFrom)
        }

        private enum CodingKeys: String, CodingKey { case deviceId, times, fixCount, keptCount, tolerance, gap, nextFrom }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            deviceId = try container.decode(String.self, forKey: .deviceId)
            if let nested = try? container.decode([[String]].self, forKey: .times) {
                times = nested
            } else {
                let flat = try container.decode([String].self, forKey: .times)
                times = flat.isEmpty ? [] : [flat]
            }
            fixCount = try container.decode(Int.self, forKey: .fixCount)
            keptCount = try container.decode(Int.self, forKey: .keptCount)
            tolerance = try container.decode(Double.self, forKey: .tolerance)
            gap = try container.decode(Double.self, forKey: .gap)
            nextFrom = try container.decodeIfPresent(String.self, forKey: .nextFrom)
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(deviceId, forKey: .deviceId)
            if times.count == 1 { try container.encode(times[0], forKey: .times) } else { try container.encode(times, forKey: .times) }
            try container.encode(fixCount, forKey: .fixCount)
            try container.encode(keptCount, forKey: .keptCount)
            try container.encode(tolerance, forKey: .tolerance)
            try container.encode(gap, forKey: .gap)
            try container.encodeIfPresent(nextFrom, forKey: .nextFrom)
        }
    }

    package var geometry: Geometry?
    package var properties: Properties

    package init(geometry: Geometry?, properties: Properties) {
        self.geometry = geometry
        self.properties = properties
    }

    private enum CodingKeys: String, CodingKey { case type, geometry, properties }
    private enum GeometryKeys: String, CodingKey { case type, coordinates }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .type) == "Feature" else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "must be Feature")
        }
        properties = try container.decode(Properties.self, forKey: .properties)
        guard try !container.decodeNil(forKey: .geometry) else { geometry = nil; return }
        let shape = try container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
        switch try shape.decode(String.self, forKey: .type) {
        case "LineString": geometry = .lineString(try shape.decode([[Double]].self, forKey: .coordinates))
        case "MultiLineString": geometry = .multiLineString(try shape.decode([[[Double]]].self, forKey: .coordinates))
        default: throw DecodingError.dataCorruptedError(forKey: .type, in: shape, debugDescription: "must be LineString or MultiLineString")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("Feature", forKey: .type)
        switch geometry {
        case nil: try container.encodeNil(forKey: .geometry)
        case .lineString(let coordinates):
            var shape = container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
            try shape.encode("LineString", forKey: .type)
            try shape.encode(coordinates, forKey: .coordinates)
        case .multiLineString(let coordinates):
            var shape = container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
            try shape.encode("MultiLineString", forKey: .type)
            try shape.encode(coordinates, forKey: .coordinates)
        }
        try container.encode(properties, forKey: .properties)
    }
}
