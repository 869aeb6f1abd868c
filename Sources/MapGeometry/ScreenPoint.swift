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

    /// The screen-point values (and screen sizes, from 0) a request may name: ±2^31, so that every
    /// conversion of them stays finite.
    public static let inputRange: ClosedRange<Double> = -2_147_483_648...2_147_483_648

    /// A point from untrusted input: both values within ``inputRange``.
    public init(validatingX x: Double, y: Double) throws(FieldError) {
        try FieldError.check(x, field: "x", in: Self.inputRange)
        try FieldError.check(y, field: "y", in: Self.inputRange)
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
        try FieldError.check(width, field: "width", in: 0...ScreenPoint.inputRange.upperBound)
        try FieldError.check(height, field: "height", in: 0...ScreenPoint.inputRange.upperBound)
        self.init(width: width, height: height)
    }

    /// The sizes a map view may have, each way: from one point to a wall of 8K screens.
    public static let viewSizes: ClosedRange<Double> = 1...8192

    /// The size of a view: within ``viewSizes`` both ways.
    public init(validatingViewWidth width: Double, height: Double) throws(FieldError) {
        try FieldError.check(width, field: "width", in: Self.viewSizes)
        try FieldError.check(height, field: "height", in: Self.viewSizes)
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
