import Foundation

/// `meridian import`'s progress line on a terminal: features done, rate, ETA, rewritten in place
/// at most five times a second on standard error; silent when standard error is not a terminal.
final class ImportProgress: @unchecked Sendable {
    private let lock = NSLock()  // guards `lastDraw`
    private let start = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    /// An estimate of the features in the file (its `"Feature"` type members), for the ETA.
    private let expected: Int
    let isShown: Bool

    init(file data: Data) {
        isShown = isatty(STDERR_FILENO) == 1
        expected = isShown ? Self.countFeatures(data) : 0
    }

    /// Draws `done` (called from the import's writing thread).
    func update(_ done: Int) {
        guard isShown else { return }
        let now = ContinuousClock.now
        lock.lock()
        defer { lock.unlock() }
        if let lastDraw, now - lastDraw < .milliseconds(200) { return }
        lastDraw = now
        let seconds = max((now - start) / .seconds(1), 0.001)
        let rate = Double(done) / seconds
        let eta = expected > done && rate > 0 ? String(format: ", about %.0f s left", Double(expected - done) / rate) : ""
        let line = "\r\u{1B}[2Kimported \(done) of ~\(expected) features, \(Int(rate)) features/s\(eta)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the line before the summary is printed.
    func finish() {
        guard isShown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    private static func countFeatures(_ data: Data) -> Int {
        let needle = Array("\"Feature\"".utf8)
        return data.withUnsafeBytes { bytes -> Int in
            var count = 0, index = 0
            let end = bytes.count - needle.count
            while index <= end {
                if bytes[index] == needle[0] && bytes[index + 1] == needle[1] && zip(needle, bytes[index..<(index + needle.count)]).allSatisfy(==) {
                    count += 1
                    index += needle.count
                } else {
                    index += 1
                }
            }
            return count
        }
    }
}
