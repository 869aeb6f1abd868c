/// A point of MapKit's flat Mercator world (`MKMapPoint`): 2^28 map points wide and high,
/// origin at the north-west corner, x east, y south.
public struct MapPoint: Hashable, Sendable {
    /// Map points east of the 180th meridian's western copy; 0…2^28 inside the world.
    public var x: Double
    /// Map points south of the world's top edge (85.0511287798066° N); 0…2^28.
    public var y: Double

    /// A map point with no checks.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The map-point values (and map sizes, from 0) a request may name: within eight worlds of the
    /// origin, ±2^31, so that every conversion of them stays finite.
    public static let inputRange: ClosedRange<Double> = -2_147_483_648...2_147_483_648

    /// A map point from untrusted input: both values within ``inputRange``. x may lie outside the
    /// world (a copy east or west of it).
    public init(validatingX x: Double, y: Double) throws(FieldError) {
        try FieldError.check(x, field: "x", in: Self.inputRange)
        try FieldError.check(y, field: "y", in: Self.inputRange)
        self.init(x: x, y: y)
    }

    /// The same place with x wrapped into 0..<2^28.
    public var wrapped: MapPoint {
        MapPoint(x: Mercator.wrapX(x), y: y)
    }
}

/// A width and height in map points (`MKMapSize`).
public struct MapSize: Hashable, Sendable {
    /// Map points east–west.
    public var width: Double
    /// Map points north–south.
    public var height: Double

    /// A size with no checks.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// A size from untrusted input: finite and not negative.
    public init(validatingWidth width: Double, height: Double) throws(FieldError) {
        try FieldError.check(width, field: "width", in: 0...MapPoint.inputRange.upperBound)
        try FieldError.check(height, field: "height", in: 0...MapPoint.inputRange.upperBound)
        self.init(width: width, height: height)
    }
}
