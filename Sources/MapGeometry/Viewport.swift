import Foundation

/// What a map view shows: its size in screen points, a camera heading, and the unrotated map
/// rect (``frame``) that fills it, with the view's aspect.
///
/// The scale is one number, ``zoomScale`` screen points per map point, the same both ways.
/// The heading turns the map around the view's center: the direction `heading` degrees
/// clockwise from north points up.
public struct Viewport: Hashable, Sendable {
    /// How a caller says what the view shows.
    public enum Area: Hashable, Sendable {
        /// Origin and width fix the view; its height follows the view's aspect.
        case visibleMapRect(MapRect)
        /// Fitted to the view's aspect first (`regionThatFits:`).
        case region(Region)
        /// A center and a zoom level (256-point tiles: `zoomLevel = 20 + log2(zoomScale)`).
        case center(Coordinate, zoomLevel: Double)
    }

    /// The zoom levels a viewport may ask for.
    public static let zoomLevels: ClosedRange<Double> = 0...30

    /// The view's size in screen points.
    public let size: ScreenSize
    /// Degrees clockwise from north of the direction that points up, 0..<360.
    public let heading: Double
    /// The map rect the unrotated view covers; its aspect is the view's.
    public let frame: MapRect
    /// cos and sin of the heading, computed once.
    let cosHeading: Double, sinHeading: Double

    /// A viewport for a view of `size` showing `area`, turned by `heading` degrees.
    /// - Throws: ``FieldError`` when the area has no extent or the zoom level is out of range;
    ///   its path starts at the area's field (`visibleMapRect`, `region`, `zoomLevel`).
    public init(size: ScreenSize, heading: Double = 0, area: Area) throws(FieldError) {
        try FieldError.checkFinite(heading, field: "heading")
        let frame: MapRect
        switch area {
        case .visibleMapRect(let rect):
            guard rect.size.width > 0 else {
                throw FieldError(path: ["visibleMapRect", "size", "width"], message: "must be greater than 0")
            }
            frame = MapRect(origin: rect.origin, size: MapSize(width: rect.size.width, height: rect.size.width * size.height / size.width))
        case .region(let region):
            let rect = MapRect(region)
            guard rect.size.width > 0 || rect.size.height > 0 else {
                throw FieldError(path: ["region", "span"], message: "a viewport's region must cover some area")
            }
            frame = rect.fitting(aspectOf: size)
        case .center(let center, let zoomLevel):
            try FieldError.check(zoomLevel, field: "zoomLevel", in: Self.zoomLevels)
            let zoomScale = exp2(zoomLevel - 20)
            let mid = Mercator.mapPoint(for: center)
            let width = size.width / zoomScale, height = size.height / zoomScale
            frame = MapRect(minX: mid.x - width / 2, minY: mid.y - height / 2, maxX: mid.x + width / 2, maxY: mid.y + height / 2)
        }
        self.init(size: size, heading: heading, frame: frame)
    }

    /// A viewport from its parts, unchecked: `frame` must have the view's aspect and a width.
    public init(size: ScreenSize, heading: Double, frame: MapRect) {
        self.size = size
        let normalized = heading.truncatingRemainder(dividingBy: 360)
        self.heading = normalized < 0 ? normalized + 360 : normalized
        self.frame = frame
        let radians = self.heading * .pi / 180
        // Exact values at the quarter turns, so an unrotated view converts without rounding.
        switch self.heading {
        case 0: (cosHeading, sinHeading) = (1, 0)
        case 90: (cosHeading, sinHeading) = (0, 1)
        case 180: (cosHeading, sinHeading) = (-1, 0)
        case 270: (cosHeading, sinHeading) = (0, -1)
        default: (cosHeading, sinHeading) = (cos(radians), sin(radians))
        }
    }

    /// Screen points per map point.
    public var zoomScale: Double { size.width / frame.size.width }

    /// 20 + log2(``zoomScale``): 0 shows the world in one 256-point tile.
    public var zoomLevel: Double { 20 + log2(zoomScale) }

    /// The coordinate at the view's center.
    public var centerCoordinate: Coordinate { Mercator.coordinate(for: frame.mid) }

    /// Metres per screen point at the view's center, WGS84.
    public var metersPerPoint: Double {
        Mercator.metersPerMapPoint(atLatitude: centerCoordinate.latitude) / zoomScale
    }

    /// The map rect the view covers: the frame, or with a heading the bounding rect of the
    /// turned view. Its origin x is wrapped into 0..<2^28.
    public var visibleMapRect: MapRect {
        mapRect(for: ScreenRect(origin: ScreenPoint(x: 0, y: 0), size: size))
    }

    /// The region of ``visibleMapRect``.
    public var region: Region { Region(visibleMapRect) }
}
