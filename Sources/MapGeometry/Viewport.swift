import Foundation

/// What a map view shows: its size in screen points, a camera heading, and the unrotated map
/// rect (``frame``) that fills it, with the view's aspect, centred on what was asked for.
///
/// The scale is one number, ``zoomScale`` screen points per map point, the same both ways.
/// The heading turns the map around the view's center: the direction `heading` degrees
/// clockwise from north points up.
public struct Viewport: Hashable, Sendable {
    /// How a caller says what the view shows.
    public enum Area: Hashable, Sendable {
        /// The view shows at least the whole rect, centred on it (`setVisibleMapRect:`, which
        /// applies `mapRectThatFits:`): the other dimension grows to the view's aspect.
        case visibleMapRect(MapRect)
        /// Fitted to the view's aspect first (`regionThatFits:`), the same rule on the region's map rect.
        case region(Region)
        /// A center and a zoom level (256-point tiles: `zoomLevel = 20 + log2(zoomScale)`).
        case center(Coordinate, zoomLevel: Double)
    }

    /// The zoom levels a viewport may ask for, and the camera's range: a rect or region that needs
    /// a zoom beyond it is shown at its end, as MKMapView does.
    public static let zoomLevels: ClosedRange<Double> = 0...30

    /// The view's size in screen points.
    public let size: ScreenSize
    /// Degrees clockwise from north of the direction that points up, 0..<360.
    public let heading: Double
    /// The map rect the unrotated view covers; its aspect is the view's.
    public let frame: MapRect
    /// Screen points per map point, the same both ways; `2^(z − 20)` exactly at an integer zoom z.
    public let zoomScale: Double
    /// 20 + log2(``zoomScale``), an integer when within ``ZoomLevel/integerTolerance`` of one:
    /// 0 shows the world in one 256-point tile.
    public let zoomLevel: Double
    /// cos and sin of the heading, computed once.
    let cosHeading: Double, sinHeading: Double

    /// A viewport for a view of `size` showing `area`, turned by `heading` degrees.
    /// - Throws: ``FieldError`` when the zoom level is out of range or
    ///   the view's scale is not a finite number; its path starts at the area's field
    ///   (`visibleMapRect`, `region`, `zoomLevel`).
    public init(size: ScreenSize, heading: Double = 0, area: Area) throws(FieldError) {
        try FieldError.checkFinite(heading, field: "heading")
        let mid: MapPoint, field: [String]
        var zoomScale: Double
        switch area {
        case .visibleMapRect(let rect):
            (mid, zoomScale, field) = (rect.mid, Self.scale(fitting: rect, in: size), ["visibleMapRect"])
        case .region(let region):
            let rect = MapRect(region)
            (mid, zoomScale, field) = (rect.mid, Self.scale(fitting: rect, in: size), ["region"])
        case .center(let center, let zoomLevel):
            try FieldError.check(zoomLevel, field: "zoomLevel", in: Self.zoomLevels)
            (mid, zoomScale, field) = (Mercator.mapPoint(for: center), ZoomLevel.scale(ofLevel: zoomLevel), ["zoomLevel"])
        }
        if case .center = area {} else {
            // MKMapView keeps its camera within a zoom range; a rect or region past it (a point, say)
            // is shown at the limit.
            zoomScale = min(max(zoomScale, ZoomLevel.scale(ofLevel: Self.zoomLevels.lowerBound)), ZoomLevel.scale(ofLevel: Self.zoomLevels.upperBound))
        }
        guard zoomScale.isFinite, zoomScale > 0, mid.x.isFinite, mid.y.isFinite,
              (size.width / zoomScale).isFinite, (size.height / zoomScale).isFinite else {
            throw FieldError(path: field, message: "gives this view a scale of \(zoomScale) screen points per map point, which is not a usable number")
        }
        self.init(size: size, heading: heading, center: mid, zoomScale: zoomScale)
    }

    /// A viewport of `size` centred on `mid` at `zoomScale` screen points per map point (snapped to
    /// an integer zoom within ``ZoomLevel/integerTolerance``), unchecked.
    public init(size: ScreenSize, heading: Double, center mid: MapPoint, zoomScale: Double) {
        self.size = size
        let normalized = heading.truncatingRemainder(dividingBy: 360)
        self.heading = normalized < 0 ? normalized + 360 : normalized
        self.zoomLevel = ZoomLevel.level(ofScale: zoomScale)
        self.zoomScale = zoomLevel == zoomLevel.rounded() ? ZoomLevel.scale(ofLevel: zoomLevel) : zoomScale
        let width = size.width / self.zoomScale, height = size.height / self.zoomScale
        self.frame = MapRect(origin: MapPoint(x: mid.x - width / 2, y: mid.y - height / 2), size: MapSize(width: width, height: height))
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

    /// The scale at which a view of `size` shows all of `rect`, centred (`mapRectThatFits:`):
    /// `min(width / rect.width, height / rect.height)`; a side of zero length does not count.
    static func scale(fitting rect: MapRect, in size: ScreenSize) -> Double {
        let across = rect.size.width > 0 ? size.width / rect.size.width : .infinity
        let down = rect.size.height > 0 ? size.height / rect.size.height : .infinity
        return min(across, down)
    }

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
