public import Delivery
import Timeline
import Dispatch
import Glibc
import Synchronization

extension HostResolver {
    /// The operating system's resolver: a literal address is its own answer; a name goes to
    /// `getaddrinfo` (any family, stream sockets) on a Dispatch global queue, so the blocking call
    /// never holds a thread of Swift's cooperative pool. A lookup that takes longer than
    /// ``lookupTimeout`` is unresolvable; answers (and failures) are reused for ``cacheLifetime``,
    /// so a busy webhook does not ask DNS per event. The guard checks the addresses at every send
    /// all the same, and the request goes to the address checked.
    public static let system = HostResolver { host in
        if let literal = IPAddress(host) { return [literal] }
        if let cached = cache.answer(for: host) { return try cached.get() }
        let answer: Result<[IPAddress], WebhookURLError> = await withCheckedContinuation { continuation in
            let once = OnceFlag()
            DispatchQueue.global().async {
                let result = Result { () throws(WebhookURLError) in try getaddrinfoAddresses(of: host) }
                if once.claim() { continuation.resume(returning: result) }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(lookupTimeout.wholeNanoseconds))) {
                if once.claim() { continuation.resume(returning: .failure(.unresolvable(host: host))) }
            }
        }
        cache.store(answer, for: host)
        return try answer.get()
    }

    /// How long a name lookup may take.
    public static let lookupTimeout = Duration.seconds(5)
    /// How long a lookup's answer is reused.
    public static let cacheLifetime = Duration.seconds(5)
    fileprivate static let cache = ResolutionCache()

    /// Every address `getaddrinfo` gives for `host` (AF_UNSPEC, SOCK_STREAM), in its order;
    /// `.unresolvable` when it fails, finds nothing, or the name is empty or holds a NUL byte.
    fileprivate static func getaddrinfoAddresses(of host: String) throws(WebhookURLError) -> [IPAddress] {
        guard !host.isEmpty, !host.utf8.contains(0) else { throw .unresolvable(host: host) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { throw .unresolvable(host: host) }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node?.pointee {
            if let address = Self.address(of: entry) { addresses.append(address) }
            node = entry.ai_next
        }
        guard !addresses.isEmpty else { throw .unresolvable(host: host) }
        return addresses
    }

    /// The IPv4 or IPv6 address of one `getaddrinfo` result; nil for another family or a short sockaddr.
    fileprivate static func address(of entry: addrinfo) -> IPAddress? {
        guard let socketAddress = UnsafeRawPointer(entry.ai_addr) else { return nil }
        let length = Int(entry.ai_addrlen)
        switch entry.ai_family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            let ipv4 = socketAddress.loadUnaligned(as: sockaddr_in.self).sin_addr
            return IPAddress(bytes: withUnsafeBytes(of: ipv4) { Array($0) })
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            let ipv6 = socketAddress.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return IPAddress(bytes: withUnsafeBytes(of: ipv6) { Array($0) })
        default:
            return nil
        }
    }
}

/// True for the first caller only: who resumes a continuation raced by two callbacks.
private final class OnceFlag: Sendable {
    private let taken = Atomic<Bool>(false)
    func claim() -> Bool { taken.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged }
}

/// Recent answers of the system resolver, by host.
private final class ResolutionCache: Sendable {
    private struct Entry { let answer: Result<[IPAddress], WebhookURLError>; let until: ContinuousClock.Instant }
    private let entries = Mutex<[String: Entry]>([:])
    /// Most hosts remembered; beyond, the table starts afresh.
    static let capacity = 4_096

    func answer(for host: String) -> Result<[IPAddress], WebhookURLError>? {
        entries.withLock { entries in
            guard let entry = entries[host], ContinuousClock.now < entry.until else { return nil }
            return entry.answer
        }
    }

    func store(_ answer: Result<[IPAddress], WebhookURLError>, for host: String) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = [:] }
            entries[host] = Entry(answer: answer, until: .now + HostResolver.cacheLifetime)
        }
    }
}
