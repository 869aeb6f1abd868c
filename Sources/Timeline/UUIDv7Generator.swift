public import Foundation
import Synchronization

/// Where new ids come from.
public protocol UUIDv7Source: Sendable {
    /// A new id, greater than every id this source issued before.
    func next() -> UUIDv7
}

/// Monotonic UUIDv7 ids (RFC 9562 §6.2, method 2: the 74 bits after the timestamp are a counter
/// seeded at random each new millisecond and incremented within one).
///
/// Seeded with the greatest id already stored, it never issues one at or below it, even when
/// the clock has gone back since (a restart on another machine, NTP): it keeps counting from there.
///
/// The step. A new millisecond seeds the counter with 73 random bits (the mask shifted right
/// once), so it starts below 2^73 and at least 2^73 of headroom remains under the 74-bit maximum.
/// Each further id in the same millisecond (or while the clock lags) adds 1 + a random 0…65 535:
/// ids stay strictly increasing, the next one is not the previous plus one, and at most 2^16 per
/// step means ≥ 2^73 / 2^16 = 2^57 ids fit before the counter would overflow. Should it ever
/// overflow, the id moves to the next millisecond with a fresh seed, still above the last one.
public final class UUIDv7Generator: UUIDv7Source {
    private struct State { var milliseconds: UInt64; var counter: UInt128 }
    private static let counterBits = 74
    private static let counterMask: UInt128 = (1 << 74) - 1

    private let state: Mutex<State>
    private let now: @Sendable () -> Date
    private let random: @Sendable () -> UInt64

    /// A generator issuing ids after `lastIssued`.
    /// - Parameters:
    ///   - lastIssued: the greatest id already handed out (from storage), if any.
    ///   - now: the clock.
    ///   - random: 64 random bits per call.
    public init(
        after lastIssued: UUIDv7? = nil,
        now: @escaping @Sendable () -> Date = Date.init,
        random: @escaping @Sendable () -> UInt64 = RandomBits.shared.next
    ) {
        self.now = now
        self.random = random
        let start = lastIssued.map { State(milliseconds: $0.milliseconds, counter: Self.counter(of: $0)) }
        self.state = Mutex(start ?? State(milliseconds: 0, counter: 0))
    }

    public func next() -> UUIDv7 {
        let clock = UInt64(max(0, now().timeIntervalSince1970 * 1000))
        let fresh = (UInt128(random()) << 64 | UInt128(random())) & Self.counterMask >> 1  // leave headroom
        return state.withLock { state in
            if clock > state.milliseconds {
                state = State(milliseconds: clock, counter: fresh)
            } else {
                // Same millisecond, or the clock went back: count on from the last id.
                state.counter += 1 + UInt128(random() & 0xFFFF)
                if state.counter > Self.counterMask {
                    state = State(milliseconds: state.milliseconds + 1, counter: fresh)
                }
            }
            return Self.id(milliseconds: state.milliseconds, counter: state.counter)
        }
    }

    /// Lays out timestamp, version, counter and variant.
    static func id(milliseconds: UInt64, counter: UInt128) -> UUIDv7 {
        let randA = UInt64(truncatingIfNeeded: counter >> 62) & 0xFFF
        let randB = UInt64(truncatingIfNeeded: counter) & ((1 << 62) - 1)
        return UUIDv7(high: milliseconds << 16 | 0x7 << 12 | randA, low: 0b10 << 62 | randB)
    }

    /// The 74-bit counter of an id.
    static func counter(of id: UUIDv7) -> UInt128 {
        UInt128(id.high & 0xFFF) << 62 | UInt128(id.low & ((1 << 62) - 1))
    }
}

/// 64-bit random values for id counters: xoshiro256** seeded from the system's generator and
/// reseeded every 65 536 draws. The system generator alone costs a `getrandom` system call per
/// value, which bulk imports (tens of thousands of ids) felt; ids are public, not secrets.
public final class RandomBits: Sendable {
    /// One shared source for every generator.
    public static let shared = RandomBits()
    private struct State { var words: (UInt64, UInt64, UInt64, UInt64); var remaining: Int }
    private let state: Mutex<State>

    public init() {
        state = Mutex(State(words: (0, 0, 0, 0), remaining: 0))
    }

    public func next() -> UInt64 {
        state.withLock { state in
            if state.remaining == 0 {
                var system = SystemRandomNumberGenerator()
                repeat {
                    state.words = (system.next(), system.next(), system.next(), system.next())
                } while state.words == (0, 0, 0, 0)
                state.remaining = 1 << 16
            }
            state.remaining -= 1
            var (s0, s1, s2, s3) = state.words
            let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
            let t = s1 << 17
            s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t
            s3 = s3 << 45 | s3 >> 19
            state.words = (s0, s1, s2, s3)
            return result
        }
    }
}
