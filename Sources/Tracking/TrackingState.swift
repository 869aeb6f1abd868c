import Geodesy
import MapGeometry
public import Timeline
/// Everything evaluation needs, in memory: subscriptions (with a spatial index of regions),
/// devices, and where each subscription stands with each device. The database holds the same and
/// is the truth: this is rebuilt from it at start, and the ``Tracker`` applies each change here
/// first, then commits it, and reloads from the database when the commit fails.
public struct TrackingState: Sendable {
    /// Every subscription, deleted ones included (their events stay readable).
    public private(set) var subscriptions: [String: Subscription] = [:]
    public internal(set) var devices: [String: DeviceState] = [:]
    public private(set) var progress: [ProgressKey: SubscriptionProgress] = [:]
    /// The last event sequence issued.
    public internal(set) var lastSequence: Int64
    /// How many fixes have been accepted, across devices.
    public internal(set) var acceptedFixes: Int64
    /// The tenant's ingest filters (a device's own or its group's take their place: ``ingestFilterOverride(for:)``).
    public internal(set) var ingestFilters: IngestFilters
    /// The device registry: profiles by device id, group records by name.
    public internal(set) var profiles: [String: DeviceProfile] = [:]
    public internal(set) var groups: [String: DeviceGroup] = [:]
    /// Where each status subscription stands with each device it evaluated, deadlines included
    /// (changed through ``setStatus(_:for:)``, which keeps ``statusRows`` with it).
    public internal(set) var statuses: [ProgressKey: DeviceStatus] = [:]
    /// Live status subscriptions, by whom they cover.
    var statusSubscriptions = CoverageIndex()
    /// Per device, the status subscriptions that have a status with it.
    var statusRows: [String: Set<String>] = [:]

    private(set) var regions = RegionIndex()
    /// The regions that detect crossings between fixes, by box, for the segments they may lie on.
    private var crossingRegions = RegionIndex()
    /// Live significant-change and visits subscriptions (they evaluate every fix of the devices they cover).
    private var significant = CoverageIndex()
    /// Region subscriptions each device is inside.
    private var insideByDevice: [String: Set<String>] = [:]
    /// Per device, the subscriptions whose progress the store holds with an older last evaluated fix
    /// (nothing else differs): exactly those that evaluated the device's last fix (see ``settle``).
    var unsaved: [String: Set<String>] = [:]

    /// State as the database holds it.
    /// - Parameter tails: per device with progress, when its last fix arrived and its accepted fix
    ///   before that, to bring forward the last evaluated fix the store did not write (``settle``).
    public init(
        subscriptions: [Subscription], devices: [DeviceState], progress: [ProgressKey: SubscriptionProgress], lastSequence: Int64, acceptedFixes: Int64,
        tails: [String: DeviceTail] = [:], profiles: [DeviceProfile] = [], groups: [DeviceGroup] = [], ingestFilters: IngestFilters = .off,
        statuses: [ProgressKey: DeviceStatus] = [:]
    ) {
        self.lastSequence = lastSequence
        self.acceptedFixes = acceptedFixes
        self.ingestFilters = ingestFilters
        for profile in profiles { self.profiles[profile.id] = profile }
        for group in groups { self.groups[group.name] = group }
        for subscription in subscriptions { add(subscription) }
        for device in devices { self.devices[device.id] = device }
        for (key, value) in progress { setProgress(value, for: key) }
        for (deviceId, tail) in tails { settle(deviceId, tail) }
        for (key, status) in statuses { setStatus(status, for: key) }
        deriveDeadlines()
    }

    /// What the store knows of a device's last fix beyond the fix itself.
    public struct DeviceTail: Sendable {
        /// When the last fix arrived (its skip rules depend on it).
        public var receivedAt: Instant
        /// The accepted fix before it (crossings look at the segment between them).
        public var previous: LocationFix?

        public init(receivedAt: Instant, previous: LocationFix?) {
            (self.receivedAt, self.previous) = (receivedAt, previous)
        }
    }

    /// Ingest writes a subscription's progress only when what it decides changes (inside, the
    /// stay, dwell, the last notified fix) or when the subscription stops evaluating the device's
    /// fixes; the rows of the subscriptions that evaluated the device's last fix may hold an
    /// older last evaluated fix. Those are exactly the subscriptions that evaluate the last fix
    /// again now (relevance and skip rules are functions of the fix, its arrival, the fix before
    /// and the stored state), so their last evaluated fix is the device's last fix.
    mutating func settle(_ deviceId: String, _ tail: DeviceTail) {
        guard let device = devices[deviceId], let fix = device.lastFix else { return }
        var stale: Set<String> = []
        for subscription in relevantSubscriptions(for: fix, of: deviceId, inside: insideByDevice[deviceId] ?? [], from: tail.previous)
        where subscription.skipReason(for: fix, receivedAt: tail.receivedAt) == nil {
            // Edited since the device's last fix: the edit wrote the progress whole, by rules that
            // may not be the ones the fix was evaluated by.
            if let edited = subscription.editedAfterFixes, device.lastAcceptedOrdinal <= edited { continue }
            let key = ProgressKey(subscriptionId: subscription.id, deviceId: deviceId)
            // An unclassified region has not evaluated a fix since (it would have been classified and written).
            guard var value = progress[key], subscription.region == nil || value.inside != nil else { continue }
            if let evaluated = value.lastEvaluated, evaluated.timestamp >= fix.timestamp { continue }
            value.lastEvaluated = fix
            progress[key] = value
            stale.insert(subscription.id)
        }
        if !stale.isEmpty { unsaved[deviceId] = stale }
    }

    /// The empty state of a new database.
    public init() {
        self.init(subscriptions: [], devices: [], progress: [:], lastSequence: 0, acceptedFixes: 0)
    }

    /// Starts evaluating `subscription` (or keeps a deleted one for reads).
    public mutating func add(_ subscription: Subscription) {
        subscriptions[subscription.id] = subscription
        guard subscription.deletedAt == nil else { return }
        switch subscription.rule {
        case .significantChange, .visits:
            // Both evaluate every fix of the devices they cover.
            significant.insert(subscription)
        case .region(let rule):
            regions.insert(subscription.id, bounds: rule.shape.bounds)
            if rule.detectCrossings { crossingRegions.insert(subscription.id, bounds: rule.shape.bounds) }
        case .status:
            statusSubscriptions.insert(subscription)
        }
    }

    /// Where `subscriptionId` stands with every device it has evaluated.
    public func progress(of subscriptionId: String) -> [(deviceId: String, progress: SubscriptionProgress)] {
        progress.filter { $0.key.subscriptionId == subscriptionId }.map { ($0.key.deviceId, $0.value) }.sorted { $0.deviceId < $1.deviceId }
    }

    /// Where each subscription stands with `deviceId`.
    public func progress(ofDevice deviceId: String) -> [(subscriptionId: String, progress: SubscriptionProgress)] {
        progress.filter { $0.key.deviceId == deviceId }.map { ($0.key.subscriptionId, $0.value) }.sorted { $0.subscriptionId < $1.subscriptionId }
    }

    // MARK: - Ingest

    /// Classifies a batch of fixes of one device in array order and evaluates the accepted ones;
    /// changes nothing until ``apply(_:)`` (the tracker applies a plan before the next one is
    /// planned, so a group of batches sees each other's fixes, then commits the group).
    ///
    /// Each fix is checked in turn: rejected (invalid), duplicate (an instant the device has),
    /// filtered (``IngestFilters/rule(dropping:lastKept:)`` against the device's newest accepted
    /// fix, the batch's earlier ones included), then late or accepted. A late fix the store
    /// already holds is marked a duplicate after the commit, unless a filter dropped it first.
    public func plan(deviceId: String, fixes: [LocationFix], receivedAt: Instant, eventID: () -> String) -> IngestPlan {
        var plan = IngestPlan(deviceId: deviceId, device: devices[deviceId] ?? DeviceState(id: deviceId), receivedAt: receivedAt)
        let filters = ingestFilterOverride(for: deviceId) ?? ingestFilters
        var ordinal = acceptedFixes
        var sequence = lastSequence
        var storedInBatch: Set<Instant> = []  // accepted fixes' instants
        var lateStoredInBatch: [Instant: Int] = [:]  // late fixes' instants, by batch index
        var inside = insideByDevice[deviceId] ?? []
        var unsaved = self.unsaved[deviceId] ?? []
        // The batch's progress by subscription id (one string to hash, not two), keyed for the plan at the end.
        var changed: [String: SubscriptionProgress] = [:]
        var saved: Set<String> = []
        func known(_ id: String) -> SubscriptionProgress? {
            changed[id] ?? self.progress[ProgressKey(subscriptionId: id, deviceId: deviceId)]
        }
        for (index, fix) in fixes.enumerated() {
            if let reason = fix.rejection(receivedAt: receivedAt) {
                plan.results.append(.init(index: index, status: .rejected(reason)))
                continue
            }
            let newest = plan.device.lastFix?.timestamp
            let late = newest.map { fix.timestamp <= $0 } ?? false
            // An earlier late fix of the batch at this instant: stored unless the store held it already.
            let lateInBatch = late ? lateStoredInBatch[fix.timestamp] : nil
            if late, lateInBatch == nil, fix.timestamp == newest || storedInBatch.contains(fix.timestamp) {
                plan.results.append(.init(index: index, status: .duplicate))
                continue
            }
            if let rule = filters.rule(dropping: fix, lastKept: plan.device.lastFix) {
                plan.results.append(.init(index: index, status: .filtered(rule)))
                // A duplicate of what that earlier fix stores, a filtered fix if the store held the instant.
                if let lateInBatch { plan.duplicateIfStored[index] = lateInBatch }
                continue
            }
            if lateInBatch != nil {
                plan.results.append(.init(index: index, status: .duplicate))
                continue
            }
            if late {
                plan.results.append(.init(index: index, status: .late))
                plan.stored.append(.init(index: index, fix: fix, late: true))
                lateStoredInBatch[fix.timestamp] = index
                continue
            }
            storedInBatch.insert(fix.timestamp)
            plan.results.append(.init(index: index, status: .accepted))
            plan.stored.append(.init(index: index, fix: fix, late: false))
            let lastOrdinal = plan.device.lastAcceptedOrdinal
            var evaluated: Set<String> = []
            for subscription in relevantSubscriptions(for: fix, of: deviceId, inside: inside, from: plan.device.lastFix) {
                let known = known(subscription.id)
                if let reason = subscription.skipReason(for: fix, receivedAt: receivedAt) {
                    plan.skipped.append(.init(index: index, subscriptionId: subscription.id, reason: reason))
                    // A region that has not classified the device yet keeps it unclassified, so its
                    // first evaluated fix is still classified by plain containment.
                    if known == nil, subscription.region != nil {
                        changed[subscription.id] = SubscriptionProgress()
                        saved.insert(subscription.id)
                    }
                    continue
                }
                var progress = known ?? SubscriptionProgress()
                let emissions: [Evaluation.Emission]
                switch subscription.rule {
                case .significantChange(let rule):
                    emissions = Evaluation.significantChange(rule, &progress, fix)
                case .status:
                    continue  // evaluated apart (planStatuses), never relevant here
                case .visits(let rule):
                    emissions = Evaluation.visits(rule, &progress, fix)
                case .region(let rule):
                    // Without progress, the device was last seen outside the region's box, if at all.
                    emissions = Evaluation.region(
                        rule, &progress, fix, evaluatedBefore: known == nil && lastOrdinal > subscription.acceptedFixesBefore,
                        deviceFix: plan.device.lastFix)
                }
                changed[subscription.id] = progress
                if let known, known.decidesAlike(progress) { evaluated.insert(subscription.id) } else { saved.insert(subscription.id) }
                if progress.inside == true { inside.insert(subscription.id) } else { inside.remove(subscription.id) }
                for emission in emissions {
                    sequence += 1
                    plan.events.append(TrackingEvent(
                        id: eventID(), sequence: sequence, subscriptionId: subscription.id, subscriptionName: subscription.name,
                        subscriptionProperties: subscription.properties, deviceId: deviceId, kind: emission.kind,
                        location: emission.interpolated ?? fix, previousLocation: emission.previous,
                        occurredAt: emission.interpolated?.timestamp ?? fix.timestamp, recordedAt: receivedAt, interpolated: emission.interpolated != nil,
                        visit: emission.visit
                    ))
                }
            }
            // Those that evaluated the fix before but not this one are written as they stand.
            for id in unsaved where !evaluated.contains(id) {
                guard let value = known(id) else { continue }
                changed[id] = value
                saved.insert(id)
            }
            unsaved = evaluated
            if !statusSubscriptions.isEmpty { planStatuses(for: fix, at: index, into: &plan, sequence: &sequence, eventID: eventID) }
            ordinal += 1
            plan.device.lastFix = fix
            plan.device.lastAcceptedOrdinal = ordinal
        }
        plan.acceptedFixes = ordinal
        for (id, value) in changed { plan.progress[ProgressKey(subscriptionId: id, deviceId: deviceId)] = value }
        plan.saved = Set(saved.lazy.map { ProgressKey(subscriptionId: $0, deviceId: deviceId) })
        // A progress written later in the batch is written whole, up to date.
        plan.unsaved = unsaved.subtracting(saved)
        return plan
    }

    /// Live subscriptions that evaluate `fix` of `deviceId`, in id (creation) order: significant-change
    /// ones, regions whose box holds the fix, and the regions the device is inside.
    /// With the device's fix before (`from`), also the regions that detect crossings whose box meets the segment's.
    private func relevantSubscriptions(for fix: LocationFix, of deviceId: String, inside: Set<String>, from previous: LocationFix?) -> [Subscription] {
        // Each id is looked up once; the sets below never overlap (significant-change and visits ids are no
        // regions, candidates already inside are skipped), so no set of all of them is built.
        var found: [Subscription] = []
        func add(_ id: String) { if let subscription = subscriptions[id] { found.append(subscription) } }
        significant.forEach(covering: deviceId, groups: profiles[deviceId]?.groups, add)
        for id in inside { add(id) }
        for id in regions.candidates(at: fix.coordinate) where !inside.contains(id) {
            if let subscription = subscriptions[id], covers(subscription, deviceId) { found.append(subscription) }
        }
        if let previous, crossingRegions.count > 0 {
            let known = Set(found.lazy.map(\.id))
            for id in crossingRegions.candidates(meeting: Self.segmentBox(previous.coordinate, fix.coordinate)) where !known.contains(id) {
                if let subscription = subscriptions[id], covers(subscription, deviceId) { found.append(subscription) }
            }
        }
        return found.sorted { $0.id < $1.id }
    }

    /// A box around the geodesic between two points: theirs the short way round, widened by 1 % of
    /// its size and 0.01° for the geodesic's bulge, and at least as far as half its length reaches
    /// in latitude (no point of the path is further than that from both ends).
    static func segmentBox(_ a: Coordinate, _ b: Coordinate) -> BoundingBox {
        let south = min(a.latitude, b.latitude), north = max(a.latitude, b.latitude)
        var west = min(a.longitude, b.longitude), east = max(a.longitude, b.longitude)
        if east - west > 180 { (west, east) = (east, west) }  // the short way crosses 180°
        let width = west <= east ? east - west : east + 360 - west
        let pad = max(0.01 + 0.01 * max(width, north - south), GeodesicBounds.latitudeReach(GeodesicBounds.upper(a, b) / 2))
        guard width + 2 * pad < 360 else { return BoundingBox(west: -180, south: max(-90, south - pad), east: 180, north: min(90, north + pad)) }
        return BoundingBox(
            west: Coordinate.wrapLongitude(west - pad), south: max(-90, south - pad),
            east: Coordinate.wrapLongitude(east + pad), north: min(90, north + pad))
    }

    /// Takes in a plan (before its commit; a failed commit reloads the whole state).
    public mutating func apply(_ plan: IngestPlan) {
        // As the store: a device is known from its first accepted fix (a batch all rejected or late leaves none).
        if plan.device.lastFix != nil { devices[plan.deviceId] = plan.device }
        for (key, value) in plan.progress { setProgress(value, for: key) }
        unsaved[plan.deviceId] = plan.unsaved.isEmpty ? nil : plan.unsaved
        for (key, status) in plan.statuses { setStatus(status, for: key) }
        lastSequence = plan.events.last?.sequence ?? lastSequence
        acceptedFixes = plan.acceptedFixes
    }

    /// Drops where a subscription stands with a device (its inside and unsaved marks too).
    mutating func forget(_ key: ProgressKey) {
        progress[key] = nil
        insideByDevice[key.deviceId]?.remove(key.subscriptionId)
        unsaved[key.deviceId]?.remove(key.subscriptionId)
    }

    mutating func setProgress(_ value: SubscriptionProgress, for key: ProgressKey) {
        // Most evaluations change only the last evaluated fix: the inside sets stay as they are.
        if let before = progress.updateValue(value, forKey: key), (before.inside == true) == (value.inside == true) { return }
        if value.inside == true {
            insideByDevice[key.deviceId, default: []].insert(key.subscriptionId)
        } else {
            insideByDevice[key.deviceId]?.remove(key.subscriptionId)
        }
    }

    // MARK: - Deletion

    /// Deleting `subscriptionId` at `at`: a region's `regionDeleted` exit for each device inside
    /// (when it notifies on exit), at the deletion time with the last evaluated location.
    public func planDeletion(of subscriptionId: String, at: Instant, eventID: () -> String) -> DeletionPlan? {
        guard var subscription = subscriptions[subscriptionId], subscription.deletedAt == nil else { return nil }
        subscription.deletedAt = at
        var plan = DeletionPlan(subscription: subscription)
        guard let rule = subscription.region, rule.notifyOnExit else { return plan }
        var sequence = lastSequence
        for (deviceId, progress) in self.progress(of: subscriptionId) where progress.inside == true {
            guard let location = progress.lastEvaluated else { continue }
            sequence += 1
            plan.events.append(TrackingEvent(
                id: eventID(), sequence: sequence, subscriptionId: subscriptionId, subscriptionName: subscription.name,
                subscriptionProperties: subscription.properties, deviceId: deviceId, kind: .exit,
                reason: TrackingEvent.regionDeleted, location: location, previousLocation: nil, occurredAt: at, recordedAt: at
            ))
        }
        return plan
    }

    /// Takes in a deletion (before its commit; a failed commit reloads the whole state).
    public mutating func apply(_ plan: DeletionPlan) {
        let id = plan.subscription.id
        subscriptions[id] = plan.subscription
        regions.remove(id)
        crossingRegions.remove(id)
        significant.remove(plan.subscription)
        statusSubscriptions.remove(plan.subscription)
        forgetStatuses(subscriptionId: id)
        for key in progress.keys where key.subscriptionId == id {
            progress[key] = nil
            insideByDevice[key.deviceId]?.remove(id)
            unsaved[key.deviceId]?.remove(id)
        }
        lastSequence = plan.events.last?.sequence ?? lastSequence
    }
}

extension TrackingState {
    /// Takes in an edit (before its commit; a failed commit reloads the whole state): the
    /// subscription indexed anew, the flipped states, the events.
    public mutating func apply(_ plan: ChangePlan) {
        let id = plan.subscription.id
        regions.remove(id)
        crossingRegions.remove(id)
        add(plan.subscription)
        for (key, value) in plan.progress {
            setProgress(value, for: key)
            unsaved[key.deviceId]?.remove(id)
        }
        for (key, status) in plan.statuses { setStatus(status, for: key) }
        lastSequence = plan.events.last?.sequence ?? lastSequence
    }
}

/// What one ingest request will change: the answer, the rows to store, the new state.
public struct IngestPlan: Sendable {
    public struct Result: Hashable, Sendable {
        public var index: Int
        public var status: FixStatus

        public init(index: Int, status: FixStatus) {
            (self.index, self.status) = (index, status)
        }
    }

    public struct Skip: Hashable, Sendable {
        public var index: Int
        public var subscriptionId: String
        public var reason: SkipReason

        public init(index: Int, subscriptionId: String, reason: SkipReason) {
            self.index = index
            self.subscriptionId = subscriptionId
            self.reason = reason
        }
    }

    public struct StoredFix: Hashable, Sendable {
        public var index: Int
        public var fix: LocationFix
        /// A late fix is stored only if the device has none at that instant (else it is a duplicate).
        public var late: Bool
    }

    public var deviceId: String
    public var device: DeviceState
    public var receivedAt: Instant
    public var results: [Result] = []
    public var skipped: [Skip] = []
    public var stored: [StoredFix] = []
    public var events: [TrackingEvent] = []
    /// Every progress the batch changed, as it ends (the in-memory state takes all of it).
    public var progress: [ProgressKey: SubscriptionProgress] = [:]
    /// Those the store writes: a new or changed decision, or a last evaluated fix that is final.
    public var saved: Set<ProgressKey> = []
    /// The subscriptions whose progress with this device stays unwritten (they evaluated its last fix).
    public var unsaved: Set<String> = []
    public var acceptedFixes: Int64 = 0
    /// Every status the batch changed, as it ends (the in-memory state takes all of it).
    public var statuses: [ProgressKey: DeviceStatus] = [:]
    /// Those the store writes: all but the ones where only an `offline` deadline that follows the
    /// device's last fix moved (``DeviceStatus/followsLastFix``: loading derives it).
    public var savedStatuses: Set<ProgressKey> = []

    /// The progress the store writes (``saved``).
    public var writtenProgress: [ProgressKey: SubscriptionProgress] {
        saved.reduce(into: [:]) { written, key in written[key] = progress[key] }
    }

    /// Whether committing it writes no row: no fix stored, no event, no progress or status written
    /// (a batch all rejected, filtered or duplicate).
    public var writesNothing: Bool {
        stored.isEmpty && events.isEmpty && saved.isEmpty && savedStatuses.isEmpty
    }

    /// The statuses the store writes (``savedStatuses``).
    public var writtenStatuses: [ProgressKey: DeviceStatus] {
        savedStatuses.reduce(into: [:]) { written, key in written[key] = statuses[key] }
    }

    /// Filtered fixes at the instant of an earlier late fix of the batch, by batch index, with that
    /// fix's index: a duplicate if that fix is stored, filtered if the store already held the instant.
    public var duplicateIfStored: [Int: Int] = [:]

    /// Marks late fixes the database already held as duplicates, and the filtered fixes at the
    /// instant of a late fix it stored.
    public mutating func markDuplicates(_ indexes: Set<Int>) {
        guard !indexes.isEmpty || !duplicateIfStored.isEmpty else { return }
        for position in results.indices {
            let index = results[position].index
            if indexes.contains(index) {
                results[position].status = .duplicate
            } else if let earlier = duplicateIfStored[index], !indexes.contains(earlier) {
                results[position].status = .duplicate
            }
        }
    }
}

/// What deleting a subscription will change.
public struct DeletionPlan: Sendable {
    /// The subscription with its deletion time.
    public var subscription: Subscription
    public var events: [TrackingEvent] = []
}
