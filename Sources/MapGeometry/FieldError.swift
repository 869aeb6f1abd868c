/// A field that cannot be used, with its path inside the value that was checked: the project-wide
/// "this field is invalid" error (coordinates, viewports, annotation and GeoJSON fields,
/// subscriptions). It lives here, in the target everything depends on.
///
/// `path` is relative to the checked value (`["span", "latitudeDelta"]`); callers that know
/// where the value sits in a request prepend their part with ``nested(under:)``. The server
/// turns it into a 422 whose pointer is the path (`/viewport/span/latitudeDelta`).
public struct FieldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Field names or array indexes from the checked value down to the bad field.
    public var path: [String]
    /// What is wrong, for a person: "must be between -90 and 90, got 91".
    public var message: String

    /// An error at `path` with a message.
    public init(path: [String], message: String) {
        self.path = path
        self.message = message
    }

    /// The same error seen from a value that holds this one in `field`.
    public func nested(under field: String) -> FieldError {
        nested(under: [field])
    }

    /// The same error seen from a value that holds this one at `path`.
    public func nested(under path: [String]) -> FieldError {
        FieldError(path: path + self.path, message: message)
    }

    public var description: String {
        path.isEmpty ? message : "\(path.joined(separator: ".")): \(message)"
    }

    /// Throws unless `value` is finite.
    public static func checkFinite(_ value: Double, field: String) throws(FieldError) {
        guard value.isFinite else {
            throw FieldError(path: [field], message: "must be a finite number")
        }
    }

    /// Throws unless `value` is finite and within `range` (both ends included).
    public static func check(_ value: Double, field: String, in range: ClosedRange<Double>) throws(FieldError) {
        try checkFinite(value, field: field)
        guard range.contains(value) else {
            throw FieldError(
                path: [field],
                message: "must be between \(range.lowerBound.shortDescription) and \(range.upperBound.shortDescription), got \(value.shortDescription)"
            )
        }
    }

    /// Throws unless `value` is finite and at least `minimum`.
    public static func check(_ value: Double, field: String, atLeast minimum: Double) throws(FieldError) {
        try checkFinite(value, field: field)
        guard value >= minimum else {
            throw FieldError(path: [field], message: "must be at least \(minimum.shortDescription), got \(value.shortDescription)")
        }
    }

    /// Throws unless `value` is finite and greater than `minimum`.
    public static func check(_ value: Double, field: String, greaterThan minimum: Double) throws(FieldError) {
        try checkFinite(value, field: field)
        guard value > minimum else {
            throw FieldError(path: [field], message: "must be greater than \(minimum.shortDescription), got \(value.shortDescription)")
        }
    }
}

extension Double {
    /// "90" rather than "90.0" for whole numbers, for messages.
    var shortDescription: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return String(self)
    }
}
