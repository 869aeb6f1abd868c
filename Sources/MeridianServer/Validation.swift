import MapGeometry

/// The request limits handlers enforce.
struct Limits: Sendable {
    /// Most items in one batch.
    var maxBatchSize: Int
    /// How long an event stream may be silent before it sends a heartbeat comment.
    var heartbeat: Duration = .seconds(15)
}

/// Collects every invalid field of a request while wire values become domain values, so one
/// 422 answer names them all (up to ``maxErrors``).
struct Validation {
    /// More errors than this are not listed.
    static let maxErrors = 50
    private(set) var errors: [ProblemDetails.FieldError] = []
    let limits: Limits

    init(_ limits: Limits) {
        self.limits = limits
    }

    /// The value `make` builds, or nil after recording its error at `pointer` + the error's path.
    mutating func value<T>(at pointer: String, _ make: () throws(GeometryError) -> T) -> T? {
        do {
            return try make()
        } catch {
            record(pointer: JSONPointer.append(pointer, error.path), error.message)
            return nil
        }
    }

    /// Each item of a batch through `make`, with item errors at `pointer/<index>/…`; the batch
    /// itself must hold at most ``Limits/maxBatchSize`` items.
    mutating func batch<Wire, T>(_ items: [Wire], at pointer: String, _ make: (Wire) throws(GeometryError) -> T) -> [T] {
        guard items.count <= limits.maxBatchSize else {
            record(pointer: pointer, "must hold at most \(limits.maxBatchSize) items, got \(items.count)")
            return []
        }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            do {
                result.append(try make(item))
            } catch {
                record(pointer: JSONPointer.append(pointer, [String(index)] + error.path), error.message)
            }
        }
        return result
    }

    /// Records an error.
    mutating func record(pointer: String, _ detail: String) {
        guard errors.count < Self.maxErrors else { return }
        errors.append(.init(pointer: pointer, detail: detail))
    }

    /// Throws a 422 listing every recorded error, if any.
    func check() throws(ProblemError) {
        guard errors.isEmpty else { throw ProblemError.invalid(errors) }
    }
}
