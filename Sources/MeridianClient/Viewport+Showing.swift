extension Components.Schemas.Viewport {
    /// A view of `size` screen points showing `visibleMapRect` whole, turned by `heading` degrees.
    public static func showing(_ visibleMapRect: Components.Schemas.MapRectInput, size: Components.Schemas.ViewSize, heading: Double? = nil) -> Self {
        .MapRectViewport(.init(size: size, heading: heading, visibleMapRect: visibleMapRect))
    }

    /// A view of `size` screen points showing `region` (fitted to the view's aspect).
    public static func showing(_ region: Components.Schemas.Region, size: Components.Schemas.ViewSize, heading: Double? = nil) -> Self {
        .RegionViewport(.init(size: size, heading: heading, region: region))
    }

    /// A view of `size` screen points centred on `center` at `zoomLevel` (256-point tiles).
    public static func centered(on center: Components.Schemas.Coordinate, zoomLevel: Double, size: Components.Schemas.ViewSize, heading: Double? = nil) -> Self {
        .CenterViewport(.init(size: size, heading: heading, center: center, zoomLevel: zoomLevel))
    }
}
