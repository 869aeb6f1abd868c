/// The rules of request bodies that both readers apply, the generated handlers (which explain a
/// refusal with a 422) and the fast routes (which decline it to them): one number in one place.
enum RequestRules {
    /// Most fixes in one ingest request.
    static let maxFixesPerRequest = 1_000
    /// How many `nearest` answers when `limit` is absent.
    static let defaultNearest = 10

    /// A body's `limit`, or `fallback` when absent; nil outside ``Paging/limits``.
    static func limit(_ given: Int?, default fallback: Int) -> Int? {
        let limit = given ?? fallback
        return Paging.limits.contains(limit) ? limit : nil
    }

    /// Whether `metres` may be a `maxDistance`: a positive, finite number of metres.
    static func isMaxDistance(_ metres: Double) -> Bool {
        metres > 0 && metres.isFinite
    }
}
