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

    /// A map point from untrusted input: both values finite. x may lie outside the world
    /// (a copy east or west of it).
    public init(validatingX x: Double, y: Double) throws(FieldError) {
        try FieldError.checkFinite(x, field: "x")
        try FieldError.checkFinite(y, field: "y")
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
        try FieldError.check(width, field: "width", atLeast: 0)
        try FieldError.check(height, field: "height", atLeast: 0)
        self.init(width: width, height: height)
    }
}
