import TestSupport
import Annotations
import Foundation
import MapGeometry
@testable import AnnotationIndex
import Testing
import Timeline

@Suite struct ThinningIndexTests {
    static let kinds = ["cafe", "shop", "park", nil]
    static let groups = ["food", nil, nil, "green"]

    /// Points in a few dense blobs and a sprinkle over the world, some coincident, some required.
    static func points(_ count: Int, seed: UInt64, firstID: Int = 0) -> [ReferencePoint] {
        var random = SeededGenerator(seed: seed)
        let centres = [(48.85, 2.35), (-33.87, 151.21), (-17.8, 179.95), (40.7, -74.0), (0.1, 0.05)]
        return (0..<count).map { i in
            let coordinate: Coordinate
            switch Int.random(in: 0..<10, using: &random) {
            case 0...5:
                let (lat, lon) = centres.randomElement(using: &random)!
                let spread = [0.001, 0.05, 2.0].randomElement(using: &random)!
                var longitude = lon + Double.random(in: -spread...spread, using: &random)
                if longitude > 180 { longitude -= 360 }
                coordinate = Coordinate(latitude: lat + Double.random(in: -spread...spread, using: &random), longitude: longitude)
            case 6:
                coordinate = Coordinate(latitude: 48.8584, longitude: 2.2945)  // a stack
            default:
                coordinate = Coordinate(latitude: Double.random(in: -80...80, using: &random), longitude: Double.random(in: -180..<180, using: &random))
            }
            let style = Int.random(in: 0..<4, using: &random)
            let priority = Int.random(in: 0..<40, using: &random) == 0 ? 1000 : [0, 250, 500, 750, 999].randomElement(using: &random)!
            return ReferencePoint(id: testID(firstID + i), coordinate: coordinate, kind: kinds[style], group: groups[(style + i) % 4], priority: priority)
        }
    }

    static func views(seed: UInt64) -> [(MapRect, ThinningGrid)] {
        var random = SeededGenerator(seed: seed)
        let world = Mercator.worldSize
        var views: [(MapRect, ThinningGrid)] = [(MapRect(minX: 0, minY: 0, maxX: world, maxY: world), ThinningGrid(zoom: 0, cellSize: 64))]
        for _ in 0..<40 {
            let zoom = Int.random(in: 0...22, using: &random)
            let grid = ThinningGrid(zoom: zoom, cellSize: [16, 64, 100, 512].randomElement(using: &random)!)
            let width = 1024 * exp2(Double(20 - zoom)), height = 768 * exp2(Double(20 - zoom))
            let centre = Mercator.mapPoint(for: [
                Coordinate(latitude: 48.85, longitude: 2.35), Coordinate(latitude: -17.8, longitude: 179.99),
                Coordinate(latitude: 0.1, longitude: 0.05), Coordinate(latitude: Double.random(in: -70...70, using: &random), longitude: 10),
            ].randomElement(using: &random)!)
            views.append((MapRect(minX: centre.x - width / 2, minY: centre.y - height / 2, maxX: centre.x + width / 2, maxY: centre.y + height / 2), grid))
        }
        return views
    }

    func check(_ index: ThinningIndex, against points: [ReferencePoint], views: [(MapRect, ThinningGrid)], filter: ThinningFilter = ThinningFilter()) {
        for (rect, grid) in views {
            let expected = Reference.thin(points, rect: rect, grid: grid, filter: filter)
            let result = index.thin(rect, grid: grid, filter: filter)
            var singles = Set<AnnotationID>()
            var clusters: [String: ReferenceCluster] = [:]
            for item in result.items {
                switch item {
                case .annotation(let id, _):
                    #expect(singles.insert(id).inserted, "an annotation is listed once")
                case .cluster(let cluster):
                    let key = "\(cluster.id.column),\(cluster.id.row)/\(cluster.clusteringIdentifier ?? "∅")"
                    clusters[key] = ReferenceCluster(
                        count: cluster.count, representative: cluster.representative, expansionZoom: cluster.expansionZoom,
                        kindCounts: cluster.kindCounts, centroid: Mercator.coordinate(for: cluster.centroid), bounds: cluster.bounds)
                }
            }
            #expect(singles == expected.singles, "zoom \(grid.zoom) cell \(grid.cellSize)")
            #expect(Set(clusters.keys) == Set(expected.clusters.keys), "zoom \(grid.zoom) cell \(grid.cellSize)")
            for (key, want) in expected.clusters {
                guard let got = clusters[key] else { continue }
                #expect(got.count == want.count && got.representative == want.representative && got.kindCounts == want.kindCounts, "\(key)")
                #expect(got.expansionZoom == want.expansionZoom, "\(key) zoom \(grid.zoom)")
                #expect(abs(got.centroid.latitude - want.centroid.latitude) < 1e-6 && abs(got.centroid.longitude - want.centroid.longitude) < 1e-6)
                #expect(got.bounds == want.bounds)
            }
        }
    }

    @Test func matchesTheObviousGridClustering() {
        let points = Self.points(3000, seed: 1)
        let index = ThinningIndex(entries: points.shuffled().map(\.entry), sequence: 0)
        #expect(index.count == 3000)
        check(index, against: points, views: Self.views(seed: 2))
        check(index, against: points, views: Self.views(seed: 3), filter: ThinningFilter(kinds: ["cafe", "park"]))
        check(index, against: points, views: Self.views(seed: 4), filter: ThinningFilter(clusteringIdentifiers: ["food"], minDisplayPriority: 500))
    }

    @Test func largePartitionsSearchThroughTheirDirectory() {
        // One partition above the directory threshold (32 768 members), with writes pending.
        var points = Self.points(40_000, seed: 11).map { point in
            var point = point
            (point.kind, point.group) = (nil, nil)
            point.priority = min(point.priority, 999)
            return point
        }
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        for i in stride(from: 0, to: 600, by: 3) {
            index.remove(points[i].id)
            points[i + 1].coordinate = Coordinate(latitude: -points[i + 1].coordinate.latitude, longitude: points[i + 1].coordinate.longitude)
            index.upsert(points[i + 1].entry)
        }
        points = points.enumerated().filter { $0.offset >= 600 || $0.offset % 3 != 0 }.map(\.element)
        check(index, against: points, views: Array(Self.views(seed: 12).prefix(15)))
    }

    @Test func idsArrivingOutOfOrderTakeTheirPlaceInIdOrder() {
        // Two instances' creates interleave in the feed: an id may be older than the newest held.
        var points = Self.points(3000, seed: 21)
        let index = ThinningIndex(entries: points.prefix(1000).map(\.entry), sequence: 0)
        var random = SeededGenerator(seed: 22)
        for start in stride(from: 1000, to: 3000, by: 8) {
            let group = Array(points[start..<start + 8].indices.reversed())
            for (step, i) in group.enumerated() {
                index.upsert(points[i].entry)
                // Now and then a delete of one just placed, so older ids after it move a removed slot.
                if step == 3, Int.random(in: 0..<3, using: &random) == 0 {
                    index.remove(points[i].id)
                    points[i].priority = -1
                }
            }
        }
        // And a batch with many older ids at once (a bulk of another instance's writes).
        let bulk = Self.points(200, seed: 25, firstID: 500_000)
        points += bulk
        index.apply(upserts: bulk.map(\.entry), removals: [], through: 1)
        let late = Self.points(100, seed: 26, firstID: 400_000)
        points += late
        index.apply(upserts: late.map(\.entry), removals: [], through: 2)
        points.removeAll { $0.priority == -1 }
        #expect(index.count == points.count)
        check(index, against: points, views: Self.views(seed: 23))
        check(index, against: points, views: Self.views(seed: 24), filter: ThinningFilter(kinds: ["cafe", "park"]))
    }

    @Test func staysExactThroughInsertsMovesAndDeletes() {
        var points = Self.points(2000, seed: 5)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        var random = SeededGenerator(seed: 6)
        var next = 10_000
        // Enough writes to pass several merges of the pending additions and removals.
        for round in 0..<4 {
            for _ in 0..<700 {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let point = Self.points(1, seed: random.next(), firstID: next)[0]
                    next += 1
                    points.append(point)
                    index.upsert(point.entry)
                case 1 where !points.isEmpty:
                    let i = Int.random(in: points.indices, using: &random)
                    points[i].coordinate = Self.points(1, seed: random.next())[0].coordinate
                    points[i].priority = [0, 500, 1000].randomElement(using: &random)!
                    index.upsert(points[i].entry)
                default:
                    guard !points.isEmpty else { continue }
                    let removed = points.remove(at: Int.random(in: points.indices, using: &random))
                    index.remove(removed.id)
                }
            }
            #expect(index.count == points.count)
            check(index, against: points, views: Self.views(seed: 100 + UInt64(round)))
        }
        index.remove(testID(999_999))
        #expect(index.count == points.count, "removing an id it does not hold changes nothing")
    }

    @Test func requiredAnnotationsAreNeverClusteredAndPriorityPicksTheRepresentative() {
        let here = Coordinate(latitude: 10, longitude: 10)
        let points = [
            ReferencePoint(id: testID(1), coordinate: here, kind: "a", group: nil, priority: 500),
            ReferencePoint(id: testID(2), coordinate: here, kind: "a", group: nil, priority: 750),
            ReferencePoint(id: testID(3), coordinate: here, kind: "a", group: nil, priority: 750),
            ReferencePoint(id: testID(4), coordinate: here, kind: "a", group: nil, priority: 1000),
            ReferencePoint(id: testID(5), coordinate: here, kind: "a", group: "other", priority: 999),
        ]
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        let world = MapRect(minX: 0, minY: 0, maxX: Mercator.worldSize, maxY: Mercator.worldSize)
        let result = index.thin(world, grid: ThinningGrid(zoom: 3, cellSize: 64))
        guard case .annotation(let first, _) = result.items.first else { Issue.record("required first"); return }
        #expect(first == testID(4))
        let clusters = result.items.compactMap { if case .cluster(let c) = $0 { c } else { nil } }
        #expect(clusters.count == 1)
        #expect(clusters.first?.count == 3)
        #expect(clusters.first?.representative == testID(2), "the higher priority, then the older")
        #expect(clusters.first?.expansionZoom == nil, "coincident points are a stack")
        #expect(result.items.count == 3, "the other identifier's single annotation stands alone")
    }

    @Test func panningKeepsClustersAndOneWriteTouchesOnlyItsCluster() {
        let points = Self.points(5000, seed: 7)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        let grid = ThinningGrid(zoom: 5, cellSize: 64)
        let paris = Mercator.mapPoint(for: Coordinate(latitude: 48.85, longitude: 2.35))
        let span = 1024 * exp2(15.0)
        func clusters(_ dx: Double, _ dy: Double) -> [String: Int] {
            let rect = MapRect(minX: paris.x - span / 2 + dx, minY: paris.y - span / 2 + dy, maxX: paris.x + span / 2 + dx, maxY: paris.y + span / 2 + dy)
            var result: [String: Int] = [:]
            for case .cluster(let cluster) in index.thin(rect, grid: grid).items { result[cluster.id.description] = cluster.count }
            return result
        }
        let before = clusters(0, 0)
        let panned = clusters(12_345.6, -98_765.4)
        let common = Set(before.keys).intersection(panned.keys)
        #expect(common.count > 3)
        for id in common { #expect(before[id] == panned[id]) }

        let added = ReferencePoint(id: testID(50_000), coordinate: Coordinate(latitude: 48.86, longitude: 2.36), kind: "cafe", group: "food", priority: 500)
        index.upsert(added.entry)
        let after = clusters(0, 0)
        let changed = Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }
        #expect(changed.count == 1, "only the cluster that gained the point changes")
        let cluster = changed.first.flatMap(ClusterID.init)
        #expect(cluster.flatMap { index.leaves(of: $0, after: nil, limit: 10_000) }?.ids.contains(added.id) == true)
    }

    @Test func zoomingInDistributesEveryMemberOnce() throws {
        let points = Self.points(4000, seed: 8)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        let paris = Mercator.mapPoint(for: Coordinate(latitude: 48.85, longitude: 2.35))
        for zoom in [2, 9, 15] {
            let grid = ThinningGrid(zoom: zoom, cellSize: 64), finer = ThinningGrid(zoom: zoom + 1, cellSize: 64)
            let half = 512 * exp2(Double(20 - zoom))
            let view = MapRect(minX: paris.x - half, minY: paris.y - half, maxX: paris.x + half, maxY: paris.y + half)
            let clusters = index.thin(view, grid: grid).items.compactMap { if case .cluster(let c) = $0 { c } else { nil } }
            for cluster in clusters.prefix(20) {
                let members = Set(index.leaves(of: cluster.id, after: nil, limit: 100_000)!.ids)
                #expect(members.count == cluster.count)
                var seen: [AnnotationID] = []
                for item in index.thin(cluster.bounds, grid: finer).items {
                    switch item {
                    case .annotation(let id, _) where members.contains(id): seen.append(id)
                    case .cluster(let child) where child.clusteringIdentifier == cluster.clusteringIdentifier:
                        let childMembers = index.leaves(of: child.id, after: nil, limit: 100_000)!.ids
                        if childMembers.contains(where: members.contains) {
                            #expect(childMembers.allSatisfy(members.contains), "a child cluster lies inside its parent")
                            seen += childMembers
                        }
                    default: break
                    }
                }
                #expect(seen.count == members.count && Set(seen) == members, "zoom \(zoom)")
            }
        }
    }

    @Test func theAntimeridianIsNoEdge() {
        let east = ReferencePoint(id: testID(1), coordinate: Coordinate(latitude: -17.8, longitude: 179.99), kind: nil, group: nil, priority: 500)
        let west = ReferencePoint(id: testID(2), coordinate: Coordinate(latitude: -17.8, longitude: -179.99), kind: nil, group: nil, priority: 500)
        let index = ThinningIndex(entries: [east.entry, west.entry], sequence: 0)
        for zoom in 0...6 {
            let items = index.thin(MapRect(minX: 0, minY: 0, maxX: Mercator.worldSize, maxY: Mercator.worldSize), grid: ThinningGrid(zoom: zoom, cellSize: 64)).items
            guard items.count == 1, case .cluster(let cluster) = items[0] else { Issue.record("zoom \(zoom): \(items)"); continue }
            #expect(cluster.count == 2)
            #expect(cluster.bounds.spans180thMeridian)
            #expect(abs(Mercator.coordinate(for: cluster.centroid).latitude + 17.8) < 1e-9)
        }
        // A zoom 14 view centred on 180° returns both sides as single annotations.
        let centre = Mercator.worldSize, width = 1024 * exp2(6.0)
        let view = MapRect(minX: centre - width / 2, minY: Mercator.mapPoint(for: east.coordinate).y - 300, maxX: centre + width / 2, maxY: Mercator.mapPoint(for: east.coordinate).y + 300)
        let close = index.thin(view, grid: ThinningGrid(zoom: 14, cellSize: 64)).items
        #expect(Set(close.compactMap { if case .annotation(let id, _) = $0 { id } else { nil } }) == [east.id, west.id])
    }

    @Test func aViewWiderThanTheWorldListsEachItemOnceAndLimitsCut() {
        let points = Self.points(500, seed: 9)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        let wide = MapRect(minX: -Mercator.worldSize, minY: 0, maxX: 2 * Mercator.worldSize, maxY: Mercator.worldSize)
        let result = index.thin(wide, grid: ThinningGrid(zoom: 1, cellSize: 64))
        let total = result.items.reduce(0) { sum, item in if case .cluster(let c) = item { sum + c.count } else { sum + 1 } }
        #expect(total == 500)
        let cut = index.thin(wide, grid: ThinningGrid(zoom: 1, cellSize: 64), limit: 3)
        #expect(cut.truncated && cut.items.count == 3 && !result.truncated)
    }

    @Test func leavesPageThroughEveryMemberOnce() throws {
        let points = Self.points(3000, seed: 10)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        let world = MapRect(minX: 0, minY: 0, maxX: Mercator.worldSize, maxY: Mercator.worldSize)
        let biggest = index.thin(world, grid: ThinningGrid(zoom: 0, cellSize: 512)).items.compactMap { if case .cluster(let c) = $0 { c } else { nil } }.max { $0.count < $1.count }!
        var cursor: LeafCursor?
        var seen: [AnnotationID] = []
        repeat {
            let page = try #require(index.leaves(of: biggest.id, after: cursor.map { LeafCursor($0.description)! }, limit: 97))
            seen += page.ids
            cursor = page.next
        } while cursor != nil
        #expect(seen.count == biggest.count && Set(seen).count == seen.count)
        #expect(try index.cluster(biggest.id) == biggest)
    }

    @Test func clusterIDsRoundTripAndRefuseForgeries() throws {
        let id = ClusterID(grid: ThinningGrid(zoom: 7, cellSize: 64), column: 100, row: 27, clusteringIdentifier: "food", kinds: ["b", "a"], minDisplayPriority: 250)
        let text = id.description
        #expect(ClusterID(text) == id)
        #expect(text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        for bad in ["", "x", text + "A", String(text.dropLast()), "AQcG____AAAAAAA", "not base64!"] {
            #expect(ClusterID(bad) == nil, "\(bad)")
        }
        let plain = ClusterID(grid: ThinningGrid(zoom: 0, cellSize: 16), column: 15, row: 15, clusteringIdentifier: nil, kinds: nil, minDisplayPriority: nil)
        #expect(ClusterID(plain.description) == plain)
        #expect(ClusterID(ClusterID(grid: ThinningGrid(zoom: 0, cellSize: 16), column: 16, row: 0, clusteringIdentifier: nil, kinds: nil, minDisplayPriority: nil).description) == nil, "column outside the grid")
        // A CQL2 filter travels in the id as its CQL2-JSON and comes back the same filter.
        let filter = try Filter(text: "kind = 'shop' AND rating >= 4.5 AND S_INTERSECTS(geometry, BBOX(179, -18, -179, -17))")
        let filtered = ClusterID(grid: ThinningGrid(zoom: 9, cellSize: 64), column: 3, row: 4, clusteringIdentifier: nil, kinds: nil, minDisplayPriority: nil, filter: filter)
        #expect(ClusterID(filtered.description) == filtered)
        #expect(filtered.description != ClusterID(grid: filtered.grid, column: 3, row: 4, clusteringIdentifier: nil, kinds: nil, minDisplayPriority: nil).description)
    }
}
