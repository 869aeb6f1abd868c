public import NIOCore
import Synchronization
public import Timeline

/// The server's open connections: how many each remote address holds (refused past
/// ``ConnectionLimits/maxPerAddress``), and for each one a signal that moves when its client
/// hangs up, so the request it carries can stop (``TimeoutMiddleware``).
public final class ConnectionTable: Sendable {
    private struct State {
        public var perAddress: [String: Int] = [:]
        public var hangUps: [ObjectIdentifier: SequenceSignal] = [:]
    }
    private let state = Mutex(State())
    public let limits: ConnectionLimits

    public init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// Counts `channel` in; false (and not counted) when its address already holds the most.
    func open(_ channel: any Channel) -> Bool {
        let address = Self.address(of: channel)
        return state.withLock { state in
            guard state.perAddress[address, default: 0] < limits.maxPerAddress else { return false }
            state.perAddress[address, default: 0] += 1
            state.hangUps[ObjectIdentifier(channel)] = SequenceSignal(latest: 0)
            return true
        }
    }

    /// Counts `channel` out (it was counted in).
    public func close(_ channel: any Channel) {
        let address = Self.address(of: channel)
        let signal = state.withLock { state in
            state.perAddress[address, default: 1] -= 1
            if state.perAddress[address] == 0 { state.perAddress[address] = nil }
            return state.hangUps.removeValue(forKey: ObjectIdentifier(channel))
        }
        signal?.advance(to: 1)
    }

    /// Says that `channel`'s client closed its side.
    public func hangUp(_ channel: any Channel) {
        hangUpSignal(of: channel)?.advance(to: 1)
    }

    /// What moves past 0 when `channel`'s client hangs up; nil for a channel not counted here (tests' own).
    public func hangUpSignal(of channel: any Channel) -> SequenceSignal? {
        state.withLock { $0.hangUps[ObjectIdentifier(channel)] }
    }

    /// Connections `address` holds open now.
    public func count(from address: String) -> Int {
        state.withLock { $0.perAddress[address, default: 0] }
    }

    private static func address(of channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
