/// Live subscriptions by whom they cover: every device (neither `deviceIds` nor `groups`), the
/// devices they list, the groups they name. A subscription's coverage never changes after it is
/// created (an edit keeps `deviceIds` and `groups`); a device's groups may, so group members are
/// looked up at each call.
struct CoverageIndex: Sendable {
    private var forAll: Set<String> = []
    private var byDevice: [String: Set<String>] = [:]
    private var byGroup: [String: Set<String>] = [:]

    var isEmpty: Bool { forAll.isEmpty && byDevice.isEmpty && byGroup.isEmpty }

    mutating func insert(_ subscription: Subscription) {
        if subscription.deviceIds == nil && subscription.groups == nil { forAll.insert(subscription.id) }
        for device in subscription.deviceIds ?? [] { byDevice[device, default: []].insert(subscription.id) }
        for group in subscription.groups ?? [] { byGroup[group, default: []].insert(subscription.id) }
    }

    mutating func remove(_ subscription: Subscription) {
        let id = subscription.id
        forAll.remove(id)
        for device in subscription.deviceIds ?? [] { byDevice[device]?.remove(id); if byDevice[device]?.isEmpty == true { byDevice[device] = nil } }
        for group in subscription.groups ?? [] { byGroup[group]?.remove(id); if byGroup[group]?.isEmpty == true { byGroup[group] = nil } }
    }

    /// Calls `body` once with each subscription covering `deviceId`, a member of `groups` (no order).
    func forEach(covering deviceId: String, groups: [String]?, _ body: (String) -> Void) {
        for id in forAll { body(id) }
        let listed = byDevice[deviceId] ?? []
        for id in listed { body(id) }
        // A subscription may name the device and one or more of its groups: each id once.
        if let groups, !groups.isEmpty, !byGroup.isEmpty {
            var named: Set<String> = []
            for group in groups { named.formUnion(byGroup[group] ?? []) }
            for id in named.subtracting(listed) { body(id) }
        }
    }
}
