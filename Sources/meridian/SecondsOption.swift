import ArgumentParser

extension Duration {
    /// A flag's (or its variable's) seconds as a duration: nil when neither is given, a
    /// `ValidationError` naming `--flag` unless 0 < seconds ≤ `most`.
    static func seconds(_ value: Double?, flag: String, most: Double) throws -> Duration? {
        guard let seconds = value else { return nil }
        guard seconds.isFinite, seconds > 0, seconds <= most else {
            throw ValidationError("--\(flag) must be 0 < seconds ≤ \(Int(most)), got \(seconds)")
        }
        return .milliseconds(Int64(seconds * 1_000))
    }
}
