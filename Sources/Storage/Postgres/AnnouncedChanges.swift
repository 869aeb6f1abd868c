import Annotations
import AnnotationIndex
import MapGeometry
import Synchronization
import Timeline
import WireJSON

/// A tenant's latest annotation changes as their commits announced them: the writing transaction's
/// `NOTIFY` carries its changes as the index keeps them (``AnnouncedChanges/payload(_:)``), so an
/// instance's ``IndexFollower`` applies another's write, and its own, without reading it back from
/// the feed. Every instance receives every commit's notification, its own included, in commit order,
/// which is the feed's order (a tenant's writers hold its counter row until they commit).
///
/// The feed stays the truth: only a contiguous run of sequences is kept, and a gap (a payload too
/// large to carry, a notification missed while the listener reconnected) starts the run again, so
/// a reader asking for what the run does not hold reads the feed as before.
final class AnnouncedChanges: Sendable {
    /// One feed entry: the annotation as it is after it, or its deletion.
    enum Change: Sendable, Equatable {
        case upsert(ThinningEntry)
        case removal(AnnotationID)
    }

    /// Changes kept at most; older ones go a half at a time (a follower is rarely more than one commit behind).
    static let capacity = 4_096
    /// The longest payload PostgreSQL's `NOTIFY` takes is 7 999 bytes; the header needs the rest.
    static let payloadLimit = 7_800

    private struct Run {
        /// The sequence of `changes[0]`.
        var first: Int64 = 0
        var changes: [Change] = []
        var end: Int64 { first + Int64(changes.count) }
    }

    private let run = Mutex(Run())

    /// Keeps `changes`, the entries numbered up to `last`, after the run when they continue it,
    /// else as a new run.
    func append(_ changes: [Change], through last: Int64) {
        guard !changes.isEmpty else { return }
        let first = last - Int64(changes.count) + 1
        run.withLock { run in
            // Announced already: never expected (a commit notifies once).
            if !run.changes.isEmpty, first < run.end { return }
            // A gap (or the first run): start again.
            if run.changes.isEmpty || first > run.end {
                run = Run(first: first, changes: changes)
                return
            }
            run.changes += changes
            if run.changes.count > Self.capacity {
                let dropped = run.changes.count - Self.capacity / 2
                run.changes.removeFirst(dropped)
                run.first += Int64(dropped)
            }
        }
    }

    /// The changes after `sequence`, at most `limit` of them, as the index applies them (each
    /// annotation as the last of them leaves it), or nil when the run does not continue `sequence`.
    func changes(after sequence: Int64, limit: Int) -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64)? {
        let taken: ArraySlice<Change>? = run.withLock { run in
            guard run.first <= sequence + 1, sequence + 1 < run.end else { return nil }
            let start = Int(sequence + 1 - run.first)
            return run.changes[start..<min(run.changes.count, start + limit)]
        }
        guard let taken, !taken.isEmpty else { return nil }
        var last: [AnnotationID: Int] = [:]
        for (offset, change) in zip(taken.indices, taken) { last[change.id] = offset }
        var upserts: [ThinningEntry] = []
        var removals: [AnnotationID] = []
        for (offset, change) in zip(taken.indices, taken) where last[change.id] == offset {
            switch change {
            case .upsert(let entry): upserts.append(entry)
            case .removal(let id): removals.append(id)
            }
        }
        return (upserts, removals, sequence + Int64(taken.count))
    }

    // MARK: - Payload

    /// `changes` as a `NOTIFY` payload's body (a JSON array, one member per feed entry in order:
    /// `[id, latitude, longitude, version, kind, clusteringIdentifier, displayPriority, {numbers}]`
    /// or `[id]` for a deletion), or nil when it is longer than a payload may be.
    static func payload(_ changes: [Change]) -> String? {
        guard !changes.isEmpty else { return nil }
        var json = JSONWriter(capacity: min(128 * changes.count, payloadLimit + 256))
        json.raw("[")
        for (index, change) in changes.enumerated() {
            if index > 0 { json.raw(",") }
            switch change {
            case .removal(let id):
                json.raw("[")
                json.string(id.description)
                json.raw("]")
            case .upsert(let entry):
                json.raw("[")
                json.string(entry.id.description)
                for number in [entry.coordinate.latitude, entry.coordinate.longitude] {
                    json.raw(",")
                    json.number(number)
                }
                json.raw(",")
                json.int(entry.version)
                for text in [entry.kind, entry.clusteringIdentifier] {
                    json.raw(",")
                    if let text { json.string(text) } else { json.raw("null") }
                }
                json.raw(",")
                json.int(entry.displayPriority)
                json.raw(",{")
                for (offset, (name, value)) in (entry.numbers ?? [:]).enumerated() {
                    if offset > 0 { json.raw(",") }
                    json.string(name)
                    json.raw(":")
                    json.number(value)
                }
                json.raw("}]")
            }
            if json.bytes.count > payloadLimit { return nil }
        }
        json.raw("]")
        return json.bytes.count > payloadLimit ? nil : json.text
    }

    /// The changes a payload's body names, or nil when it is not one ``payload(_:)`` writes.
    static func changes(inPayload body: Substring) -> [Change]? {
        var text = String(body)
        let value = text.withUTF8 { JSONValueParser.parse(UnsafeRawBufferPointer($0)) }
        guard case .array(let members)? = value else { return nil }
        var changes: [Change] = []
        changes.reserveCapacity(members.count)
        for member in members {
            guard case .array(let fields) = member, case .string(let idText)? = fields.first, let id = AnnotationID(idText) else { return nil }
            if fields.count == 1 {
                changes.append(.removal(id))
                continue
            }
            guard fields.count == 8, case .number(let latitude) = fields[1], case .number(let longitude) = fields[2],
                  case .number(let version) = fields[3], case .number(let priority) = fields[6], case .object(let numberMembers) = fields[7],
                  let kind = optionalText(fields[4]), let identifier = optionalText(fields[5]),
                  let versionValue = Int(exactly: version.double), let priorityValue = Int(exactly: priority.double)
            else { return nil }
            var numbers: [String: Double] = [:]
            for (name, value) in numberMembers {
                guard case .number(let number) = value else { return nil }
                numbers[name] = number.double
            }
            changes.append(.upsert(ThinningEntry(
                id: id, coordinate: Coordinate(latitude: latitude.double, longitude: longitude.double), kind: kind,
                clusteringIdentifier: identifier, displayPriority: priorityValue, version: versionValue, numbers: numbers)))
        }
        return changes
    }

    /// A string or null member: `.some(nil)` for null, nil for anything else.
    private static func optionalText(_ value: JSONValue) -> String?? {
        switch value {
        case .null: .some(nil)
        case .string(let text): .some(text)
        default: nil
        }
    }
}

extension AnnouncedChanges.Change {
    var id: AnnotationID {
        switch self {
        case .upsert(let entry): entry.id
        case .removal(let id): id
        }
    }
}
