import Foundation

/// Zoom levels of 256-point tiles: `zoomLevel = 20 + log2(zoomScale)`, with `zoomScale` in screen
/// points per map point (at zoom 20 one map point is one screen point; at zoom 0 the world is one
/// 256-point tile). The one place a scale becomes a zoom and back.
public enum ZoomLevel {
    /// A zoom within this of an integer is that integer: floating-point error, not a real zoom
    /// (a 728-point view asked for zoom 9 otherwise comes back as 8.999999999999972).
    public static let integerTolerance = 1e-9

    /// The zoom level of a scale, snapped to an integer within ``integerTolerance``.
    public static func level(ofScale zoomScale: Double) -> Double {
        snapped(20 + log2(zoomScale))
    }

    /// The scale of a zoom level, `2^(zoomLevel − 20)`: exact for integer zooms.
    public static func scale(ofLevel zoomLevel: Double) -> Double {
        exp2(zoomLevel - 20)
    }

    /// `zoom`, or the integer it lies within ``integerTolerance`` of.
    public static func snapped(_ zoom: Double) -> Double {
        let nearest = zoom.rounded()
        return abs(zoom - nearest) <= integerTolerance ? nearest : zoom
    }
}
