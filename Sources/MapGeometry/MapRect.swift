/// A rectangle of the Mercator world (`MKMapRect`): north-west origin and size, in map points.
///
/// A rect may span the 180th meridian: then `maxX` exceeds 2^28 (or `minX` is negative).
public struct MapRect: Hashable, Sendable {
    /// The north-west corner.
    public var origin: MapPoint
    /// Width and height in map points.
    public var size: MapSize

    /// A rect with no checks.
    public init(origin: MapPoint, size: MapSize) {
        self.origin = origin
        self.size = size
    }

    /// A rect from its edges, in map points.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.init(origin: MapPoint(x: minX, y: minY), size: MapSize(width: maxX - minX, height: maxY - minY))
    }

    /// The smallest rect holding every point; nil for none.
    public init?(bounding points: some Sequence<MapPoint>) {
        guard let extent = Extent(points, { ($0.x, $0.y) }) else { return nil }
        self.init(minX: extent.minX, minY: extent.minY, maxX: extent.maxX, maxY: extent.maxY)
    }

    /// The western edge.
    public var minX: Double { origin.x }
    /// The northern edge.
    public var minY: Double { origin.y }
    /// The eastern edge.
    public var maxX: Double { origin.x + size.width }
    /// The southern edge.
    public var maxY: Double { origin.y + size.height }
    /// The middle, east–west.
    public var midX: Double { origin.x + size.width / 2 }
    /// The middle, north–south.
    public var midY: Double { origin.y + size.height / 2 }
    /// The center point.
    public var mid: MapPoint { MapPoint(x: midX, y: midY) }

    /// The four corners: north-west, north-east, south-east, south-west.
    public var corners: [MapPoint] {
        [MapPoint(x: minX, y: minY), MapPoint(x: maxX, y: minY), MapPoint(x: maxX, y: maxY), MapPoint(x: minX, y: maxY)]
    }

    /// The same rect moved east by `dx` map points.
    public func offsetBy(dx: Double) -> MapRect {
        MapRect(origin: MapPoint(x: origin.x + dx, y: origin.y), size: size)
    }

    /// The same area with its origin x wrapped into 0..<2^28 (`maxX` may then pass 2^28).
    public var wrapped: MapRect {
        MapRect(origin: origin.wrapped, size: size)
    }

    /// Whether the rect crosses the 180th meridian (`MKMapRectSpans180thMeridian`).
    public var spans180thMeridian: Bool {
        minX < 0 || maxX > Mercator.worldSize
    }

    /// The part of a rect that lies past the 180th meridian, moved back into the world
    /// (`MKMapRectRemainder`); nil when the rect lies inside the world's width.
    ///
    /// The rect is wrapped first; a rect wider than the world has the world's width as remainder.
    public var remainder: MapRect? {
        let rect = wrapped
        guard rect.maxX > Mercator.worldSize else { return nil }
        let width = min(rect.maxX - Mercator.worldSize, Mercator.worldSize)
        return MapRect(origin: MapPoint(x: 0, y: rect.minY), size: MapSize(width: width, height: rect.size.height))
    }

    /// A rect from untrusted input: finite origin, finite non-negative size.
    public init(validatingOrigin origin: (x: Double, y: Double), size: (width: Double, height: Double)) throws(FieldError) {
        let o: MapPoint
        let s: MapSize
        do { o = try MapPoint(validatingX: origin.x, y: origin.y) } catch { throw error.nested(under: "origin") }
        do { s = try MapSize(validatingWidth: size.width, height: size.height) } catch { throw error.nested(under: "size") }
        self.init(origin: o, size: s)
    }
}
