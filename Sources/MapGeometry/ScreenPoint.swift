/// A point of a view, in screen points, origin top-left, y down.
public struct ScreenPoint: Hashable, Sendable {
    /// Points right of the view's left edge.
    public var x: Double
    /// Points below the view's top edge.
    public var y: Double

    /// A point with no checks.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// A point from untrusted input: both values finite.
    public init(validatingX x: Double, y: Double) throws(FieldError) {
        try FieldError.checkFinite(x, field: "x")
        try FieldError.checkFinite(y, field: "y")
        self.init(x: x, y: y)
    }
}

/// A width and height in screen points.
public struct ScreenSize: Hashable, Sendable {
    /// Points across.
    public var width: Double
    /// Points down.
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

    /// The size of a view: finite and greater than zero both ways.
    public init(validatingViewWidth width: Double, height: Double) throws(FieldError) {
        try FieldError.check(width, field: "width", greaterThan: 0)
        try FieldError.check(height, field: "height", greaterThan: 0)
        self.init(width: width, height: height)
    }
}

/// A rectangle of a view: top-left origin and size, in screen points.
public struct ScreenRect: Hashable, Sendable {
    /// The top-left corner.
    public var origin: ScreenPoint
    /// Width and height.
    public var size: ScreenSize

    /// A rect with no checks.
    public init(origin: ScreenPoint, size: ScreenSize) {
        self.origin = origin
        self.size = size
    }

    /// A rect from its edges.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.init(origin: ScreenPoint(x: minX, y: minY), size: ScreenSize(width: maxX - minX, height: maxY - minY))
    }

    /// The smallest rect holding every point; nil for none.
    public init?(bounding points: some Sequence<ScreenPoint>) {
        guard let extent = Extent(points, { ($0.x, $0.y) }) else { return nil }
        self.init(minX: extent.minX, minY: extent.minY, maxX: extent.maxX, maxY: extent.maxY)
    }

    /// The four corners: top-left, top-right, bottom-right, bottom-left.
    public var corners: [ScreenPoint] {
        let maxX = origin.x + size.width, maxY = origin.y + size.height
        return [origin, ScreenPoint(x: maxX, y: origin.y), ScreenPoint(x: maxX, y: maxY), ScreenPoint(x: origin.x, y: maxY)]
    }

    /// A rect from untrusted input: finite origin, finite non-negative size.
    public init(validatingOrigin origin: (x: Double, y: Double), size: (width: Double, height: Double)) throws(FieldError) {
        let o: ScreenPoint
        let s: ScreenSize
        do { o = try ScreenPoint(validatingX: origin.x, y: origin.y) } catch { throw error.nested(under: "origin") }
        do { s = try ScreenSize(validatingWidth: size.width, height: size.height) } catch { throw error.nested(under: "size") }
        self.init(origin: o, size: s)
    }
}
