@_spi(Generated) package import OpenAPIRuntime

/// The contract's `Viewport` (`typeOverrides`): one of three closed forms (a map rect, a region, or
/// a center with a zoom level), read as one object holding whichever members were sent, so the
/// server names what is wrong with it (two ways at once is 422 at the viewport, `center` without
/// `zoomLevel` 422 at `zoomLevel`) instead of a generated `oneOf` answering "matches no form".
/// A member of none of the forms is refused as the generated forms refuse it (400 at that member).
package struct ViewportInput: Codable, Hashable, Sendable {
    package var size: Components.Schemas.ViewSize
    /// Degrees clockwise from north; nil is 0.
    package var heading: Double?
    package var visibleMapRect: Components.Schemas.MapRectInput?
    package var region: Components.Schemas.Region?
    package var center: Components.Schemas.Coordinate?
    package var zoomLevel: Double?

    /// A viewport with these members (give exactly one way to say what it shows).
    package init(
        size: Components.Schemas.ViewSize, heading: Double? = nil, visibleMapRect: Components.Schemas.MapRectInput? = nil,
        region: Components.Schemas.Region? = nil, center: Components.Schemas.Coordinate? = nil, zoomLevel: Double? = nil
    ) {
        (self.size, self.heading, self.visibleMapRect, self.region) = (size, heading, visibleMapRect, region)
        (self.center, self.zoomLevel) = (center, zoomLevel)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case size, heading, visibleMapRect, region, center, zoomLevel
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decode(Components.Schemas.ViewSize.self, forKey: .size)
        heading = try container.decodeIfPresent(Double.self, forKey: .heading)
        visibleMapRect = try container.decodeIfPresent(Components.Schemas.MapRectInput.self, forKey: .visibleMapRect)
        region = try container.decodeIfPresent(Components.Schemas.Region.self, forKey: .region)
        center = try container.decodeIfPresent(Components.Schemas.Coordinate.self, forKey: .center)
        zoomLevel = try container.decodeIfPresent(Double.self, forKey: .zoomLevel)
        try decoder.ensureNoAdditionalProperties(knownKeys: Set(CodingKeys.allCases.map(\.rawValue)))
    }
}
