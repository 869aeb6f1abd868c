/// Speeds in the units tracking apps send, to metres per second: the exact factors, applied as
/// one multiplication and one division of whole numbers.
public enum SpeedUnits {
    /// Knots to metres per second: 1 kn = 1852 m per hour = 1852/3600 = 463/900 m/s.
    public static func metresPerSecond(knots: Double) -> Double { knots * 463 / 900 }

    /// Kilometres per hour to metres per second: 1 km/h = 1000/3600 = 5/18 m/s.
    public static func metresPerSecond(kilometresPerHour: Double) -> Double { kilometresPerHour * 5 / 18 }
}
