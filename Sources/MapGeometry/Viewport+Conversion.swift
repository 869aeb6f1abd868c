/// Conversions between the map and the view's screen points (MKMapView's convert methods).
extension Viewport {
    /// The screen point of a map point (`pointForMapPoint:`). Of the world's copies east and
    /// west, the one nearest the view's center is used.
    public func screenPoint(for point: MapPoint) -> ScreenPoint {
        unwrappedScreenPoint(for: MapPoint(x: nearestCopyX(of: point.x), y: point.y))
    }

    /// The map point under a screen point (`mapPointForPoint:`), x wrapped into 0..<2^28.
    public func mapPoint(for point: ScreenPoint) -> MapPoint {
        unwrappedMapPoint(for: point).wrapped
    }

    /// The screen point of a coordinate (`convertCoordinate:toPointToView:`).
    public func screenPoint(for coordinate: Coordinate) -> ScreenPoint {
        screenPoint(for: Mercator.mapPoint(for: coordinate))
    }

    /// The coordinate under a screen point (`convertPoint:toCoordinateFromView:`).
    public func coordinate(for point: ScreenPoint) -> Coordinate {
        Mercator.coordinate(for: unwrappedMapPoint(for: point))
    }

    /// The screen rect of a map rect (`rectForMapRect:`); with a heading, the bounding rect of
    /// the turned rect. The rect's copy nearest the view's center is used.
    public func screenRect(for rect: MapRect) -> ScreenRect {
        let shifted = rect.offsetBy(dx: nearestCopyX(of: rect.midX) - rect.midX)
        // A bounding box of four corners always exists.
        return ScreenRect(bounding: shifted.corners.map(unwrappedScreenPoint(for:)))!
    }

    /// The map rect under a screen rect (`mapRectForRect:`); with a heading, the bounding map
    /// rect of the turned rect. Origin x wrapped into 0..<2^28.
    public func mapRect(for rect: ScreenRect) -> MapRect {
        MapRect(bounding: rect.corners.map(unwrappedMapPoint(for:)))!.wrapped
    }

    /// The screen rect of a region (`convertRegion:toRectToView:`).
    public func screenRect(for region: Region) -> ScreenRect {
        screenRect(for: MapRect(region))
    }

    /// The region under a screen rect (`convertRect:toRegionFromView:`).
    public func region(for rect: ScreenRect) -> Region {
        Region(mapRect(for: rect))
    }

    // MARK: - The one formula each way

    /// Unrotated `p₀ = ((x − minX)·zs, (y − minY)·zs)`, then turned around the view's center c:
    /// `p = c + (dx·cos h + dy·sin h, −dx·sin h + dy·cos h)` with `(dx, dy) = p₀ − c`.
    func unwrappedScreenPoint(for point: MapPoint) -> ScreenPoint {
        let zs = zoomScale
        let cx = size.width / 2, cy = size.height / 2
        let dx = (point.x - frame.minX) * zs - cx
        let dy = (point.y - frame.minY) * zs - cy
        return ScreenPoint(x: cx + dx * cosHeading + dy * sinHeading, y: cy - dx * sinHeading + dy * cosHeading)
    }

    /// The exact inverse of ``unwrappedScreenPoint(for:)``; x is not wrapped.
    func unwrappedMapPoint(for point: ScreenPoint) -> MapPoint {
        let zs = zoomScale
        let cx = size.width / 2, cy = size.height / 2
        let ex = point.x - cx, ey = point.y - cy
        let dx = ex * cosHeading - ey * sinHeading
        let dy = ex * sinHeading + ey * cosHeading
        return MapPoint(x: frame.minX + (cx + dx) / zs, y: frame.minY + (cy + dy) / zs)
    }

    /// x moved by whole worlds to the copy nearest the frame's center; a point exactly half a
    /// world away stays where it is.
    func nearestCopyX(of x: Double) -> Double {
        let distance = frame.midX - x
        guard abs(distance) > Mercator.worldSize / 2 else { return x }
        return x + (distance / Mercator.worldSize).rounded() * Mercator.worldSize
    }
}
