import Annotations
import Testing

/// A key held by a request still being processed refuses a duplicate at once, and is free again
/// when that request ends, whether it succeeded or threw.
@Suite struct IdempotencyKeysInFlightTests {
    struct Failure: Error {}

    @Test func aDuplicateWhileTheFirstRunsIsRefusedAndTheKeyIsFreedAfter() async throws {
        let keys = IdempotencyKeysInFlight()
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await keys.holding("k") {
                startedSignal.yield()
                for await _ in release { break }
                return 1
            }
        }
        for await _ in started { break }
        await #expect(throws: AnnotationStoreError.idempotencyKeyInFlight("k")) { try await keys.holding("k") { 2 } }
        #expect(try await keys.holding("other") { 3 } == 3, "another key is not held")
        #expect(try await keys.holding(nil) { 4 } == 4, "no key holds nothing")
        releaseSignal.yield()
        #expect(try await first.value == 1)
        #expect(try await keys.holding("k") { 5 } == 5, "free once the first ended")
        await #expect(throws: Failure.self) { try await keys.holding("k") { () async throws -> Int in throw Failure() } }
        #expect(try await keys.holding("k") { 6 } == 6, "free after a request that threw")
    }
}
