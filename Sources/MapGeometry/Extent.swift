/// The smallest and largest x and y of a set of points: the edges of their bounding rect.
struct Extent {
    var minX = Double.infinity, minY = Double.infinity
    var maxX = -Double.infinity, maxY = -Double.infinity

    /// The extent of `points`, read through `coordinates`; nil for no points.
    init?<Points: Sequence>(_ points: Points, _ coordinates: (Points.Element) -> (x: Double, y: Double)) {
        for point in points {
            let (x, y) = coordinates(point)
            minX = min(minX, x); maxX = max(maxX, x)
            minY = min(minY, y); maxY = max(maxY, y)
        }
        guard minX <= maxX else { return nil }
    }
}
