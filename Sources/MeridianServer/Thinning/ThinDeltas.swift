import Annotations
import AnnotationIndex
import MapGeometry
import Synchronization

/// The recent thin answers of one tenant on this instance, by `deltaToken`, so a live map can ask
/// for only what changed since its last answer. Each is kept as its items' ids and fingerprints
/// (a hash of what the item shows), not the items: a delta then writes only the items that differ.
/// The oldest go first beyond ``maxAnswers`` answers or ``maxItems`` items in all, and a token
/// goes once a delta has answered it; a token this instance does not hold (too old, used,
/// another instance's, from before a restart) answers whole.
final class ThinDeltas: Sendable {
    static let maxAnswers = 512
    static let maxItems = 200_000

    /// What an answer answered: the same request but for `since` (a delta between different views
    /// would change every screen point: those answer whole).
    struct Scope: Hashable {
        var viewport: Viewport
        var grid: ThinningGrid
        var filter: ThinningFilter
        var options: ThinningOptions
        var aggregateKinds: [String: [AggregateKind]]
        var limit: Int

        init(_ query: ThinningQuery) {
            (viewport, grid, filter, options, aggregateKinds, limit) = (query.viewport, query.grid, query.filter, query.options, query.aggregateKinds, query.limit)
        }
    }

    private struct Kept {
        var scope: Scope
        var prints: [String: Int]
    }

    private struct State {
        var next: UInt64 = 0
        var order: [String] = []
        var first = 0
        var kept: [String: Kept] = [:]
        var items = 0
    }

    /// Tells this instance's tokens apart from another's and from before a restart.
    private let prefix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    private let state = Mutex(State())

    /// Keeps an answer's fingerprints and names it.
    func remember(_ scope: Scope, prints: [String: Int]) -> String {
        state.withLock { state in
            state.next += 1
            let token = "\(prefix).\(state.next)"
            state.kept[token] = Kept(scope: scope, prints: prints)
            state.order.append(token)
            state.items += prints.count
            // The order lists taken tokens too (gone already): it keeps at most twice the answers.
            while state.first < state.order.count,
                  state.kept.count > Self.maxAnswers || (state.items > Self.maxItems && state.kept.count > 1)
                    || state.order.count - state.first > 2 * Self.maxAnswers {
                let oldest = state.order[state.first]
                state.first += 1
                state.items -= state.kept.removeValue(forKey: oldest)?.prints.count ?? 0
            }
            if state.first > Self.maxAnswers { state.order.removeFirst(state.first); state.first = 0 }
            return token
        }
    }

    /// The fingerprints of the answer `token` names, if it is held and answered `scope`; it is
    /// then dropped (its client moves on to the new answer's token), so the answers kept follow
    /// the clients, not how often they ask.
    func take(_ token: String, scope: Scope) -> [String: Int]? {
        state.withLock { state in
            guard let kept = state.kept[token], kept.scope == scope else { return nil }
            state.kept[token] = nil
            state.items -= kept.prints.count
            return kept.prints
        }
    }
}

/// What a thin answer with `since` writes instead of its whole list.
struct ThinDelta {
    /// Positions in the answer's items of those added and of those changed.
    var added: [Int]
    var changed: [Int]
    /// Ids of the earlier answer's items this one lacks, sorted.
    var removed: [String]

    /// The difference from `earlier` (ids → fingerprints) to `now` (the answer's items shown:
    /// position, id, fingerprint).
    init(from earlier: [String: Int], to now: [(position: Int, id: String, print: Int)]) {
        (added, changed) = ([], [])
        var present = Set<String>()
        for item in now {
            present.insert(item.id)
            switch earlier[item.id] {
            case nil: added.append(item.position)
            case let print? where print != item.print: changed.append(item.position)
            default: break
            }
        }
        removed = earlier.keys.filter { !present.contains($0) }.sorted()
    }
}
