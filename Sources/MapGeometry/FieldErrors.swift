/// Every invalid field of one value being read, collected so one answer names them all: the one
/// accumulator of field errors (request bodies, subscriptions, thinning requests, GeoJSON imports).
///
/// ```swift
/// var errors = FieldErrors()
/// let center = errors.value(at: ["center"]) { () throws(FieldError) in try Coordinate(wire.center) }
/// let size = errors.value(at: ["size"]) { () throws(FieldError) in try ScreenSize(…) }
/// let (c, s) = try errors.check(center, size)   // throws the errors, or hands back the values
/// ```
public struct FieldErrors: Error, Hashable, Sendable, CustomStringConvertible {
    /// More errors than this are not kept: an answer lists the first ones.
    public static let maxCount = 50

    /// The errors recorded, in the order found (at most ``maxCount``).
    public private(set) var errors: [FieldError] = []
    /// How many were found, including those past ``maxCount``.
    public private(set) var total = 0

    public init() {}

    /// Errors already found.
    public init(_ errors: [FieldError]) {
        for error in errors { record(error) }
    }

    public var isEmpty: Bool { total == 0 }

    /// Records an error.
    public mutating func record(_ error: FieldError) {
        total += 1
        if errors.count < Self.maxCount { errors.append(error) }
    }

    /// Records an error at `path`.
    public mutating func record(at path: [String], _ message: String) {
        record(FieldError(path: path, message: message))
    }

    /// The value `make` builds, or nil after recording its error under `path`.
    public mutating func value<T>(at path: [String] = [], _ make: () throws(FieldError) -> T) -> T? {
        do {
            return try make()
        } catch {
            record(error.nested(under: path))
            return nil
        }
    }

    /// Each item through `make`, in order, errors at `path/<index>/…`; a batch of more than
    /// `maxItems` is one error at `path`.
    public mutating func batch<Item, T>(_ items: [Item], at path: [String], maxItems: Int, _ make: (Item) throws(FieldError) -> T) -> [T] {
        guard items.count <= maxItems else {
            record(at: path, "must hold at most \(maxItems) items, got \(items.count)")
            return []
        }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            // The item's path is built only for an error: batches run to 10 000 items.
            do { result.append(try make(item)) } catch { record(error.nested(under: path + [String(index)])) }
        }
        return result
    }

    /// Throws these errors, if any were recorded.
    public func check() throws(FieldErrors) {
        guard isEmpty else { throw self }
    }

    /// The values read, once no error was recorded; otherwise throws the errors. A value is nil
    /// only when reading it recorded an error, so the values come back whole.
    public func check<each T>(_ values: repeat (each T)?) throws(FieldErrors) -> (repeat each T) {
        try check()
        return (repeat try Self.present(each values))
    }

    private static func present<T>(_ value: T?) throws(FieldErrors) -> T {
        guard let value else { throw FieldErrors([FieldError(path: [], message: "could not be read")]) }
        return value
    }

    public var description: String {
        errors.map(\.description).joined(separator: "; ")
    }
}
