import TestSupport
import Annotations
import Foundation
import MapGeometry
@testable import AnnotationIndex
import Testing
import Timeline

/// Aggregates, weights and `maxZoom` against the members' values summed the obvious way, through
/// every kind of write the index takes: new ids, ids older than the newest (their ordinals shift
/// the column's values), moves, value changes, deletions, a bulk that renumbers, merges.
@Suite struct ThinningAggregateTests {
    static let options = ThinningOptions(weight: "v", aggregates: ["v"])

    /// Values with the cases the rules name: none, negative (weighs 1), zero, whole and fractional.
    static func value(_ random: inout SeededGenerator) -> Double? {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: nil
        case 1: -Double(Int.random(in: 1...50, using: &random))
        case 2: 0
        case 3: Double(Int.random(in: 1...1_000_000, using: &random))
        default: Double.random(in: 0...10, using: &random)
        }
    }

    static func points(_ count: Int, seed: UInt64, firstID: Int) -> [ReferencePoint] {
        var random = SeededGenerator(seed: seed &+ 17)
        return ThinningIndexTests.points(count, seed: seed, firstID: firstID).map { point in
            var point = point
            point.value = value(&random)
            return point
        }
    }

    func check(_ index: ThinningIndex, against points: [ReferencePoint], views: [(MapRect, ThinningGrid)], filter: ThinningFilter = ThinningFilter()) throws {
        for (rect, grid) in views {
            let (_, cells) = Reference.cells(points, rect: rect, grid: grid, filter: filter)
            let result = try index.thin(rect, grid: grid, filter: filter, options: Self.options)
            for case .cluster(let cluster) in result.items {
                let key = "\(cluster.id.column),\(cluster.id.row)/\(cluster.clusteringIdentifier ?? "∅")"
                guard let members = cells[key] else { Issue.record("no cell \(key)"); continue }
                let values = members.compactMap(\.value)
                let aggregate = try #require(cluster.aggregates["v"])
                #expect(aggregate.count == values.count, "\(key)")
                #expect(abs(aggregate.sum - values.reduce(0, +)) <= 1e-9 * max(1, abs(values.reduce(0, +))), "\(key)")
                #expect(aggregate.min == values.min() && aggregate.max == values.max(), "\(key)")
                // Weights: the value when ≥ 0, else 1; the centroid is the weighted mean of the members' points.
                let weights = members.map { PropertyAggregate.weight(of: $0.value) }
                let total = weights.reduce(0, +)
                #expect(abs((cluster.weight ?? -1) - total) <= 1e-9 * max(1, total), "\(key)")
                let xs = members.map { Reference.unwrapped($0.mapPoint.x) }, ys = members.map(\.mapPoint.y)
                let x = total > 0 ? zip(weights, xs).map(*).reduce(0, +) / total : xs.reduce(0, +) / Double(xs.count)
                let y = total > 0 ? zip(weights, ys).map(*).reduce(0, +) / total : ys.reduce(0, +) / Double(ys.count)
                #expect(abs(cluster.centroid.x - x) < 1e-3 && abs(cluster.centroid.y - y) < 1e-3, "\(key): \(cluster.centroid) vs \(x), \(y)")
                // The id names the weight, so the cluster read again is the same.
                #expect(try index.cluster(cluster.id, aggregates: ["v"]) == cluster)
            }
        }
    }

    @Test func aggregatesAndWeightsMatchTheLeavesThroughEveryKindOfWrite() throws {
        var points = Self.points(2000, seed: 11, firstID: 1_000_000)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        #expect(throws: ThinningIndex.MissingColumn.self) { try index.thin(MapRect.world, grid: ThinningGrid(zoom: 0, cellSize: 64), options: Self.options) }
        index.addColumn("v", values: points.compactMap { point in point.value.map { (point.id, $0) } })
        try check(index, against: points, views: ThinningIndexTests.views(seed: 40))
        var random = SeededGenerator(seed: 12)
        var newer = 2_000_000, older = 0
        for round in 0..<4 {
            for _ in 0..<700 {
                switch Int.random(in: 0..<5, using: &random) {
                case 0:
                    var point = Self.points(1, seed: random.next(), firstID: newer)[0]
                    // Now and then a class no partition held yet: a partition made after the column.
                    if newer % 50 == 0 { point.kind = "late\(newer)" }
                    newer += 1
                    points.append(point)
                    index.upsert(point.entry)
                case 1:
                    // Older than every id held: the ordinals above it, and their values, move up.
                    let point = Self.points(1, seed: random.next(), firstID: older)[0]
                    older += 1
                    points.append(point)
                    index.upsert(point.entry)
                case 2 where !points.isEmpty:
                    let i = Int.random(in: points.indices, using: &random)
                    points[i].coordinate = Self.points(1, seed: random.next(), firstID: 0)[0].coordinate
                    index.upsert(points[i].entry)
                case 3 where !points.isEmpty:
                    let i = Int.random(in: points.indices, using: &random)
                    points[i].value = Self.value(&random)
                    index.upsert(points[i].entry)
                default:
                    guard !points.isEmpty else { continue }
                    index.remove(points.remove(at: Int.random(in: points.indices, using: &random)).id)
                }
            }
            try check(index, against: points, views: ThinningIndexTests.views(seed: 50 + UInt64(round)))
            try check(index, against: points, views: ThinningIndexTests.views(seed: 60 + UInt64(round)), filter: ThinningFilter(minDisplayPriority: 500))
        }
        // A bulk of older ids in one batch renumbers every slot: the values go with their ids.
        let bulk = Self.points(300, seed: 13, firstID: older)
        points += bulk
        index.apply(upserts: bulk.map(\.entry), removals: [], through: 1)
        try check(index, against: points, views: ThinningIndexTests.views(seed: 70))
    }

    /// One class of 30 000 members, so clusters span many blocks of 64, 512 and 4 096: the partial
    /// blocks at a cluster's ends come from each member's block edges, whole blocks from their
    /// summaries, with members removed from the main run (not merged yet) on both sides and inside.
    @Test func aggregatesOfLargeClustersMatchTheLeavesWithRemovedMembers() throws {
        var points = Self.points(30_000, seed: 31, firstID: 0).map { point in
            var point = point
            (point.kind, point.group, point.priority) = ("pin", nil, 500)
            return point
        }
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        index.addColumn("v", values: points.compactMap { point in point.value.map { (point.id, $0) } })
        let views = (0...6).map { zoom in (MapRect.world, ThinningGrid(zoom: zoom, cellSize: [16, 64, 512][zoom % 3])) }
        try check(index, against: points, views: views)
        var random = SeededGenerator(seed: 32)
        // Fewer than a merge takes (√30 000 · 2 ≈ 346), in batches as the follower applies them.
        for _ in 0..<4 {
            var removals: [AnnotationID] = []
            for _ in 0..<50 { removals.append(points.remove(at: Int.random(in: points.indices, using: &random)).id) }
            index.apply(upserts: [], removals: removals, through: 1)
        }
        try check(index, against: points, views: views)
        try check(index, against: points, views: views, filter: ThinningFilter(minDisplayPriority: 500))
    }

    @Test func pastMaxZoomEveryAnnotationIsItsOwnItemAndClustersExpandByMaxZoomPlusOne() throws {
        let points = Self.points(1500, seed: 21, firstID: 0)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        for (rect, grid) in ThinningIndexTests.views(seed: 22) {
            let maxZoom = 8
            let result = try index.thin(rect, grid: grid, options: ThinningOptions(maxZoom: maxZoom))
            let (required, cells) = Reference.cells(points, rect: rect, grid: grid)
            if grid.zoom > maxZoom {
                var ids = result.items.map { item -> AnnotationID? in if case .annotation(let id, _) = item { id } else { nil } }
                #expect(!ids.contains(nil), "no cluster past maxZoom")
                #expect(Set(ids.compactMap { $0 }) == required.union(cells.values.flatMap { $0.map(\.id) }))
                // By rank: required first, then higher priority, then older.
                let byID = Dictionary(uniqueKeysWithValues: points.map { ($0.id, $0) })
                ids = ids.filter { $0 != nil }
                let ranks = ids.map { (1000 - byID[$0!]!.priority, $0!) }
                #expect(zip(ranks, ranks.dropFirst()).allSatisfy { $0 < $1 })
            } else {
                let plain = index.thin(rect, grid: grid)
                #expect(result.items.count == plain.items.count)
                for case (.cluster(let capped), .cluster(let cluster)) in zip(result.items, plain.items) {
                    #expect(capped.count == cluster.count)
                    #expect(capped.expansionZoom == min(cluster.expansionZoom ?? maxZoom + 1, maxZoom + 1))
                    #expect(capped.id.maxZoom == maxZoom && ClusterID(capped.id.description) == capped.id)
                }
            }
        }
        #expect(ThinningOptions(maxZoom: 22).maxZoom == nil, "the last grid clusters anyway")
    }

    @Test func aTinyWeightAmongZerosPlacesTheCentroidOnItsMember() throws {
        // 2 000 points in one cell near 170°E (shifted x near 2^28), all weighing 0 but one of 1e-9:
        // the weighted mean is that one point, however large the coordinates beside so small a weight.
        var random = SeededGenerator(seed: 41)
        let points = (0..<2000).map { i in
            ReferencePoint(
                id: testID(i), coordinate: Coordinate(latitude: 10 + Double.random(in: 0...0.5, using: &random), longitude: 170 + Double.random(in: 0...0.5, using: &random)),
                kind: nil, group: nil, priority: 500, value: i == 777 ? 1e-9 : 0)
        }
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        index.addColumn("v", values: points.compactMap { point in point.value.map { (point.id, $0) } })
        let result = try index.thin(MapRect.world, grid: ThinningGrid(zoom: 0, cellSize: 512), options: ThinningOptions(weight: "v"))
        guard case .cluster(let cluster) = try #require(result.items.first) else { Issue.record("one cluster"); return }
        let one = points[777].mapPoint
        #expect(cluster.count == 2000 && abs(cluster.weight! - 1e-9) < 1e-20)
        #expect(abs(Reference.unwrapped(cluster.centroid.x) - Reference.unwrapped(one.x)) < 1e-3 && abs(cluster.centroid.y - one.y) < 1e-3, "\(cluster.centroid) vs \(one)")
    }

    @Test func columnsBeyondTheLimitDropTheLeastRecentlyUsed() throws {
        let points = Self.points(200, seed: 31, firstID: 0)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        for n in 0..<ThinningIndex.maxColumns { index.addColumn("p\(n)", values: []) }
        _ = try index.thin(MapRect.world, grid: ThinningGrid(zoom: 0, cellSize: 64), options: ThinningOptions(aggregates: ["p0"]))
        index.addColumn("extra", values: [])
        #expect(index.columnNames.count == ThinningIndex.maxColumns)
        #expect(index.columnNames.contains("p0") && !index.columnNames.contains("p1") && index.columnNames.contains("extra"))
        // A column an answer holds is not dropped, even as the least recently used (p2 next, then p3).
        #expect(index.hold(["p2"]) && !index.hold(["p2", "p1"]))
        index.addColumn("more", values: [])
        #expect(index.columnNames.contains("p2") && !index.columnNames.contains("p3"))
        index.release(["p2"])
        index.addColumn("again", values: [])
        #expect(index.columnNames.count == ThinningIndex.maxColumns && !index.columnNames.contains("p4"), "held means used: the next oldest goes")
    }
}

extension MapRect {
    static let world = MapRect(minX: 0, minY: 0, maxX: Mercator.worldSize, maxY: Mercator.worldSize)
}
