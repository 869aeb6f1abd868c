public import Foundation

extension Components.Schemas.Fix {
    /// A fix at `latitude`, `longitude` (degrees) taken at `date`, `horizontalAccuracy` metres
    /// (negative: invalid), with what else the device measured (nil: not measured).
    /// - Parameters:
    ///   - speed: metres per second.
    ///   - course: degrees clockwise from true north.
    public init(
        latitude: Double, longitude: Double, at date: Date, horizontalAccuracy: Double,
        speed: Double? = nil, course: Double? = nil, altitude: Double? = nil, verticalAccuracy: Double? = nil
    ) {
        self.init(
            coordinate: .init(latitude: latitude, longitude: longitude), timestamp: Self.timestamp(date),
            horizontalAccuracy: horizontalAccuracy, speed: speed, course: course, altitude: altitude,
            verticalAccuracy: verticalAccuracy
        )
    }

    /// `date` in UTC to the microsecond, as the server keeps it (`2026-11-23T08:15:30.123456Z`): the
    /// same date always gives the same text, so a re-sent fix is recognised as a `duplicate`.
    public static func timestamp(_ date: Date) -> String { RFC3339Dates.string(from: date) }
}
