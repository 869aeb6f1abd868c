public import MapGeometry

extension GeodesicSegment {
    /// Where the segment crosses the antimeridian, for cutting a line there as RFC 7946 §3.1.9
    /// asks; nil when it does not cross.
    ///
    /// Longitude changes monotonically along a geodesic (Clairaut: the sign of sin α never
    /// changes), and along a shortest one by at most 180°, so the segment crosses exactly when its
    /// start's longitude plus the reduced difference leaves −180…180. The crossing is then found by
    /// bisection on the distance along the geodesic. A segment that starts or ends exactly on
    /// ±180° does not cross it: that end is where it meets it (and the difference of the
    /// longitudes, rounded, could say either).
    /// - Returns: the latitude there, metres from `start`, and whether the segment runs east
    ///   (leaving at +180 and coming back at −180) or west.
    public func antimeridianCrossing() -> (latitude: Double, along: Double, eastward: Bool)? {
        guard abs(start.longitude) != 180, abs(end.longitude) != 180 else { return nil }
        let turn = Self.reduced(end.longitude - start.longitude)
        let reach = start.longitude + turn
        guard reach > 180 || reach < -180 else { return nil }
        let eastward = turn > 0
        let meridian = eastward ? 180 - start.longitude : -180 - start.longitude  // the turn that reaches it
        var (low, high) = (0.0, length)
        // 64 halvings of at most 20 000 km leave well under a nanometre.
        for _ in 0..<64 {
            let middle = (low + high) / 2
            guard middle > low, middle < high else { break }
            let turned = Self.reduced(position(at: middle).coordinate.longitude - start.longitude)
            if eastward ? turned < meridian : turned > meridian { low = middle } else { high = middle }
        }
        let along = (low + high) / 2
        return (position(at: along).coordinate.latitude, along, eastward)
    }

    /// Degrees reduced to −180…180.
    private static func reduced(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value > 180 { value -= 360 } else if value < -180 { value += 360 }
        return value
    }
}
