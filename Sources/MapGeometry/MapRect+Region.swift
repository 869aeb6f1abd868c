extension MapRect {
    /// The rect spanning a region's corners. Its origin x is wrapped into 0..<2^28, so a region
    /// across the 180th meridian gives a rect whose `maxX` passes 2^28. Latitudes clamp to the world.
    public init(_ region: Region) {
        let minX = Mercator.x(forLongitude: region.west)
        let width = region.span.longitudeDelta / 360 * Mercator.worldSize
        let minY = Mercator.y(forLatitude: region.north)
        let maxY = Mercator.y(forLatitude: region.south)
        self = MapRect(minX: minX, minY: minY, maxX: minX + width, maxY: maxY).wrapped
    }
}

extension Region {
    /// The region of a map rect (`MKCoordinateRegionForMapRect`): centered on the coordinate of
    /// the rect's midpoint, `latitudeDelta = lat(minY) − lat(maxY)`, `longitudeDelta = width · 360 / 2^28`,
    /// at most 360 (a rect wider than the world covers every longitude once).
    ///
    /// This is not the exact inverse of ``MapRect/init(_:)`` in latitude: the center is the
    /// Mercator midpoint, which lies poleward of the midpoint in degrees.
    public init(_ rect: MapRect) {
        let center = Mercator.coordinate(for: rect.mid)
        let span = Span(
            latitudeDelta: Mercator.latitude(forY: rect.minY) - Mercator.latitude(forY: rect.maxY),
            longitudeDelta: min(rect.size.width / Mercator.worldSize * 360, 360)
        )
        self.init(center: center, span: span)
    }
}
