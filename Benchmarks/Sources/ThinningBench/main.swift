// Issue 5's in-process figures for the thinning index, as JSON on stdout:
// build (from points and from a SQLite database), memory, query p50/p95 for a world view at
// zoom 2 and a city view at zoom 12 (1024×768), the same with two aggregated properties against
// plain answers in the same run, and writes as the server takes them: through the
// SQLite store (one transaction each) until the next thin answer includes them, while answers run.
//
//     ThinningBench DATA_DIR [DATABASE_PATH]
//
// With THINNING_SERVE_SET=<set>, only that set's views, measured one at a time as standard input
// names them (bench-thinning.py alternates them with pysupercluster's).
//
// DATA_DIR holds Benchmarks/scripts/thinning-data.py's sets. Each set is imported into a temporary SQLite
// file for the write figure (deleted afterwards); with DATABASE_PATH the uniform set is also
// imported into that file, untouched by writes, and the index is loaded from it (the file is kept
// for the HTTP measurement of Benchmarks/scripts/bench-thinning.py).
import Annotations
import Foundation
import MapGeometry
import Storage
import AnnotationIndex
import Timeline

struct DatasetInfo: Decodable {
    struct Centre: Decodable { var latitude: Double; var longitude: Double }
    var name: String
    var count: Int
    var city: Centre
}

func seconds(_ elapsed: Duration) -> Double {
    Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return seconds(ContinuousClock.now - start)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Ids in issue order, as the store hands them out.
func entries(from points: [(Double, Double)]) -> [ThinningEntry] {
    let ids = UUIDv7Generator()
    return points.map { lon, lat in
        ThinningEntry(id: ids.next(), coordinate: Coordinate(latitude: lat, longitude: lon), kind: "pin", clusteringIdentifier: nil, displayPriority: 500)
    }
}

func load(_ path: String) throws -> [(Double, Double)] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { raw in
        let values = raw.bindMemory(to: Double.self)
        return stride(from: 0, to: values.count, by: 2).map { (values[$0], values[$0 + 1]) }
    }
}

/// The rect of a 1024×768 view centred at `centre` at `zoom`.
func view(_ centre: Coordinate, zoom: Double) throws -> MapRect {
    try Viewport(size: ScreenSize(width: 1024, height: 768), area: .center(centre, zoomLevel: zoom)).visibleMapRect
}

func queryTimes(_ index: ThinningIndex, _ rect: MapRect, zoom: Int, runs: Int, options: ThinningOptions? = nil) throws -> (p50: Double, p95: Double, items: Int) {
    let grid = ThinningGrid(zoom: zoom, cellSize: ThinningGrid.defaultCellSize)
    func answer() throws -> ThinningResult {
        if let options { try index.thin(rect, grid: grid, options: options) } else { index.thin(rect, grid: grid) }
    }
    var items = 0
    for _ in 0..<max(3, runs / 20) { items = try answer().items.count }  // warm up
    let times = try (0..<runs).map { _ in try seconds { _ = try answer() } }
    return (percentile(times, 0.5), percentile(times, 0.95), items)
}

/// Queries per measured view (bench-thinning.py gives pysupercluster the same): enough that each
/// view is measured over tens of milliseconds or more, so a burst of the shared host's other work
/// does not decide a p95 (2 000 answers of 0.6 µs took a millisecond, and one busy millisecond
/// put a view's p95 at twice its p50). The world view of a million points takes ~70 µs an answer.
func viewRuns(world: Bool, points: Int) -> Int {
    world && points >= 100_000 ? 1_000 : 20_000
}

/// Rounds of two measurements compared with each other, taken in turn (the median of each is
/// reported): a burst of the shared host's other work falls on one round of one side, not on the
/// ratio. bench-thinning.py takes pysupercluster's views and Meridian's in as many rounds.
let alternatingRounds = 5

/// Two numeric properties on every point (as a request's `aggregates` names them), their columns
/// built; then world and city p95 plain and with both aggregated, alternating, in the same run.
func aggregateTimes(_ index: ThinningIndex, _ entries: [ThinningEntry], city: Coordinate) throws -> [String: Double] {
    var random = SystemRandomNumberGenerator()
    index.addColumn("population", values: entries.map { ($0.id, Double(Int.random(in: 0...1_000_000, using: &random))) })
    index.addColumn("score", values: entries.map { ($0.id, Double.random(in: 0...10, using: &random)) })
    let options = ThinningOptions(aggregates: ["population", "score"])
    var figures: [String: Double] = [:]
    for (name, centre, zoom, runs) in [("world", Coordinate(latitude: 0, longitude: 0), 2, viewRuns(world: true, points: entries.count)), ("city", city, 12, viewRuns(world: false, points: entries.count))] {
        let rect = try view(centre, zoom: Double(zoom))
        var plain: [(p50: Double, p95: Double, items: Int)] = [], aggregated: [(p50: Double, p95: Double, items: Int)] = []
        for _ in 0..<alternatingRounds {
            plain.append(try queryTimes(index, rect, zoom: zoom, runs: runs))
            aggregated.append(try queryTimes(index, rect, zoom: zoom, runs: runs, options: options))
        }
        figures["\(name)PlainP95"] = percentile(plain.map(\.p95), 0.5)
        figures["\(name)AggregatesP95"] = percentile(aggregated.map(\.p95), 0.5)
        figures["\(name)PlainP50"] = percentile(plain.map(\.p50), 0.5)
        figures["\(name)AggregatesP50"] = percentile(aggregated.map(\.p50), 0.5)
    }
    return figures
}

/// The write path the server uses: inserts, moves and deletes (a third each) through the SQLite
/// store on a WAL file (each one transaction, committed before it returns), the follower applying
/// the feed in the background as `meridian serve` runs it, while another task asks the world view
/// through the follower; ends when an answer includes every write. Seconds per write, amortized.
func storeWriteTimes(_ store: SQLiteAnnotationStore, _ follower: IndexFollower, _ points: [(Double, Double)], operations: Int) async throws -> Double {
    let world = try view(Coordinate(latitude: 0, longitude: 0), zoom: 2)
    let grid = ThinningGrid(zoom: 2, cellSize: ThinningGrid.defaultCellSize)
    let running = Atomic(true)
    let following = Task { await follower.follow() }
    let reader = Task {
        while running.value { _ = try await follower.current().thin(world, grid: grid) }
    }
    defer { following.cancel(); reader.cancel() }
    var random = SystemRandomNumberGenerator()
    let initial = try await follower.current().count
    var live: [Annotation] = []
    let start = ContinuousClock.now
    for i in 0..<operations {
        switch i % 3 {
        case 0:
            let (lon, lat) = points[(i * 7919) % points.count]
            live.append(try await store.create(AnnotationContent(coordinate: Coordinate(latitude: lat, longitude: lon), kind: "pin")))
        case 1:
            // Move one of the new annotations a little east.
            let k = Int.random(in: 0..<live.count, using: &random)
            live[k] = try await store.update(live[k].id, expectedVersion: .none) { content in
                var moved = content
                moved.coordinate.longitude = min(moved.coordinate.longitude + 0.01, 180)
                return moved
            }
        default:
            let k = Int.random(in: 0..<live.count, using: &random)
            try await store.delete(live[k].id, expectedVersion: .none)
            live.swapAt(k, live.count - 1)
            live.removeLast()
        }
    }
    let index = try await follower.current()  // the next answer: every write is in it
    let elapsed = ContinuousClock.now - start
    running.value = false
    _ = try await reader.value
    precondition(index.count == initial + live.count, "every write reached the index")
    return seconds(elapsed) / Double(operations)
}

/// A fresh SQLite file holding `points` (one import), and its store.
func importedStore(at path: String, _ points: [(Double, Double)]) async throws -> SQLiteAnnotationStore {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let store = try await SQLiteAnnotationStore.open(path: path)
    _ = try await store.importContents(points.map { AnnotationContent(coordinate: Coordinate(latitude: $0.1, longitude: $0.0), kind: "pin") })
    return store
}

/// The index's share of a write: the same mix applied as the follower applies the feed (batches of
/// `batch` writes, one write lock each) while another thread queries the world view; seconds per write.
func applyTimes(_ index: ThinningIndex, _ points: [(Double, Double)], operations: Int, batch: Int) throws -> Double {
    let world = try view(Coordinate(latitude: 0, longitude: 0), zoom: 2)
    let running = Atomic(true)
    let reader = Thread {
        while running.value { _ = index.thin(world, grid: ThinningGrid(zoom: 2, cellSize: ThinningGrid.defaultCellSize)) }
    }
    reader.start()
    defer { running.value = false }
    let ids = UUIDv7Generator()
    var random = SystemRandomNumberGenerator()
    var live: [ThinningEntry] = []
    var upserts: [ThinningEntry] = [], removals: [AnnotationID] = []
    var sequence = index.sequence
    let initial = index.count
    let total = seconds {
        for i in 0..<operations {
            switch i % 3 {
            case 0:
                let (lon, lat) = points[(i * 7919) % points.count]
                live.append(ThinningEntry(id: ids.next(), coordinate: Coordinate(latitude: lat, longitude: lon), kind: "pin", clusteringIdentifier: nil, displayPriority: 500))
                upserts.append(live[live.count - 1])
            case 1:
                // Move one of the new annotations a little east.
                let k = Int.random(in: 0..<live.count, using: &random)
                live[k].point.x = min(live[k].point.x + 5_000, Mercator.worldSize - 1)
                upserts.append(live[k])
            default:
                let k = Int.random(in: 0..<live.count, using: &random)
                removals.append(live[k].id)
                upserts.removeAll { $0.id == live[k].id }
                live.swapAt(k, live.count - 1)
                live.removeLast()
            }
            if upserts.count + removals.count >= batch || i == operations - 1 {
                sequence += Int64(upserts.count + removals.count)
                index.apply(upserts: upserts, removals: removals, through: sequence)
                upserts.removeAll(keepingCapacity: true)
                removals.removeAll(keepingCapacity: true)
            }
        }
    }
    precondition(index.count == initial + live.count, "every write was applied")
    return total / Double(operations)
}

final class Atomic<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

let arguments = CommandLine.arguments
if let path = ProcessInfo.processInfo.environment["THINNING_LOAD_ONLY"] {
    // For perf: load the indexes from an existing database, as the server does at start.
    let store = try await SQLiteAnnotationStore.open(path: path)
    // THINNING_LOAD_ROUNDS below 3: only that many loads (1: the first, as a server's start makes
    // it, on fresh memory), without the parts that follow.
    let rounds = max(1, ProcessInfo.processInfo.environment["THINNING_LOAD_ROUNDS"].flatMap(Int.init) ?? 3)
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        let follower = try await IndexFollower(store: store)
        print("loaded \(follower.index.count) in \(ContinuousClock.now - start)")
    }
    if rounds < 3 { exit(0) }
    // Each part apart: the rows, then each index from them.
    for _ in 0..<3 {
        var start = ContinuousClock.now
        let (entries, sequence) = try await store.thinningSnapshot()
        let read = ContinuousClock.now - start
        start = ContinuousClock.now
        let points = PointIndex(entries: entries)
        let pointTime = ContinuousClock.now - start
        start = ContinuousClock.now
        let thinning = ThinningIndex(entries: entries, sequence: sequence)
        print("rows \(read), point index \(pointTime), thinning index \(ContinuousClock.now - start) (\(points.count), \(thinning.count))")
    }
    exit(0)
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: ThinningBench DATA_DIR [DATABASE_PATH]\n".utf8))
    exit(2)
}
let directory = arguments[1]
let datasets = try JSONDecoder().decode([DatasetInfo].self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/datasets.json")))
var report: [String: [String: Double]] = [:]

if let name = ProcessInfo.processInfo.environment["THINNING_SERVE_SET"] {
    // For bench-thinning.py's alternating rounds: one set's index, then each view named on standard
    // input ("world" or "city") measured as the table's views are, its figures a JSON line on
    // standard output. pysupercluster answers the same lines in turn, so both are measured in the
    // same moments of a shared host, not minutes apart.
    guard let dataset = datasets.first(where: { $0.name == name }) else { exit(2) }
    let points = try load("\(directory)/\(dataset.name).f64")
    let all = entries(from: points)
    // The resident growth of a process that built nothing before (the main run's later sets
    // inherit the heap of the earlier ones), as pysupercluster's is measured.
    FreedMemory.release()
    let before = residentBytes()
    let index = ThinningIndex(entries: all, sequence: 0)
    FreedMemory.release()
    let growth = withExtendedLifetime(all) { residentBytes() - before }  // the entries are not the index's
    let views = ["world": (Coordinate(latitude: 0, longitude: 0), 2), "city": (Coordinate(latitude: dataset.city.latitude, longitude: dataset.city.longitude), 12)]
    FileHandle.standardOutput.write(Data("{\"residentGrowthBytes\": \(growth)}\n".utf8))
    while let line = readLine() {
        guard let (centre, zoom) = views[line] else { exit(2) }
        let times = try queryTimes(index, view(centre, zoom: Double(zoom)), zoom: zoom, runs: viewRuns(world: line == "world", points: points.count))
        FileHandle.standardOutput.write(Data("{\"p50\": \(times.p50), \"p95\": \(times.p95), \"items\": \(times.items)}\n".utf8))
    }
    exit(0)
}

for dataset in datasets {
    if let only = ProcessInfo.processInfo.environment["THINNING_PROFILE_SET"], only != dataset.name { continue }
    let points = try load("\(directory)/\(dataset.name).f64")
    let all = entries(from: points)
    var figures: [String: Double] = ["count": Double(all.count)]
    var index: ThinningIndex!
    FreedMemory.release()  // what earlier sets freed is not this set's growth (nor, returned now, its shrinking)
    let before = residentBytes()
    let builds = try (0..<3).map { _ in try seconds { index = nil; index = ThinningIndex(entries: all, sequence: 0) } }
    FreedMemory.release()  // as the follower does once it has built the indexes
    figures["buildSeconds"] = builds.sorted()[1]
    figures["indexBytes"] = Double(index.memoryFootprint)
    figures["residentGrowthBytes"] = Double(residentBytes() - before)
    let world = try queryTimes(index, view(Coordinate(latitude: 0, longitude: 0), zoom: 2), zoom: 2, runs: viewRuns(world: true, points: all.count))
    (figures["worldP50"], figures["worldP95"], figures["worldItems"]) = (world.p50, world.p95, Double(world.items))
    let centre = Coordinate(latitude: dataset.city.latitude, longitude: dataset.city.longitude)
    let environment = ProcessInfo.processInfo.environment
    if let seconds = environment["THINNING_PROFILE_SECONDS"].flatMap(Double.init), environment["THINNING_PROFILE_SET"] == dataset.name {
        // For perf: one view of one set over and over (THINNING_PROFILE_ZOOM 12, the city, or 2, the world), then stop.
        let zoom = environment["THINNING_PROFILE_ZOOM"].flatMap(Double.init) ?? 12
        let rect = try view(zoom < 6 ? Coordinate(latitude: 0, longitude: 0) : centre, zoom: zoom), until = ContinuousClock.now + .seconds(seconds)
        let grid = ThinningGrid(zoom: Int(zoom), cellSize: ThinningGrid.defaultCellSize)
        // Printed at the end: the thread's CPU time per answer (steal time on a shared host is not in it).
        func cpuSeconds() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        var (answers, cpu) = (0, 0.0)
        if environment["THINNING_PROFILE_AGGREGATES"] != nil {
            // The same view with two aggregated properties (the columns of aggregateTimes).
            index.addColumn("population", values: all.map { ($0.id, Double(Int.random(in: 0...1_000_000))) })
            index.addColumn("score", values: all.map { ($0.id, Double.random(in: 0...10)) })
            let options = ThinningOptions(aggregates: ["population", "score"])
            cpu = cpuSeconds()
            while ContinuousClock.now < until { for _ in 0..<1000 { _ = try index.thin(rect, grid: grid, options: options) }; answers += 1000 }
        } else {
            cpu = cpuSeconds()
            while ContinuousClock.now < until { for _ in 0..<1000 { _ = index.thin(rect, grid: grid) }; answers += 1000 }
        }
        FileHandle.standardError.write(Data(String(format: "%d answers, %.3f µs of CPU each\n", answers, (cpuSeconds() - cpu) / Double(answers) * 1e6).utf8))
        exit(0)
    }
    let city = try queryTimes(index, view(centre, zoom: 12), zoom: 12, runs: viewRuns(world: false, points: all.count))
    (figures["cityP50"], figures["cityP95"], figures["cityItems"]) = (city.p50, city.p95, Double(city.items))
    figures.merge(try aggregateTimes(index, all, city: centre)) { $1 }
    if environment["THINNING_QUERIES_ONLY"] != nil {
        // For a quick look while optimising: the query figures alone.
        FileHandle.standardError.write(Data(String(format: "%@ world p95 %.4f ms (%d items), city p95 %.4f ms (%d items), build %.3f s, resident growth %.0f MB; +2 aggregates: world %.2f× (p50 %.2f×), city %.2f× (p50 %.2f×)\n",
            dataset.name, world.p95 * 1e3, world.items, city.p95 * 1e3, city.items, figures["buildSeconds"]!, figures["residentGrowthBytes"]! / 1e6,
            figures["worldAggregatesP95"]! / figures["worldPlainP95"]!, figures["worldAggregatesP50"]! / figures["worldPlainP50"]!,
            figures["cityAggregatesP95"]! / figures["cityPlainP95"]!, figures["cityAggregatesP50"]! / figures["cityPlainP50"]!).utf8))
        continue
    }
    figures["applySeconds"] = try applyTimes(index, points, operations: 300_000, batch: 64)
    index = nil
    let path = NSTemporaryDirectory() + "thinning-writes-\(dataset.name).sqlite"
    do {
        let store = try await importedStore(at: path, points)
        let follower = try await IndexFollower(store: store)
        figures["writeSeconds"] = try await storeWriteTimes(store, follower, points, operations: 30_000)
    }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    if dataset.name == "uniform", arguments.count >= 3 {
        // The file the load figure below and the HTTP measurement read: the set as imported.
        _ = try await importedStore(at: arguments[2], points)
    }
    report[dataset.name] = figures
    FileHandle.standardError.write(Data("measured \(dataset.name)\n".utf8))
}

if arguments.count >= 3 {
    // The uniform set through SQLite (imported above, no writes since): time loading the index from the file.
    let store = try await SQLiteAnnotationStore.open(path: arguments[2])
    var loads: [Double] = []
    for _ in 0..<3 {
        let start = ContinuousClock.now
        let follower = try await IndexFollower(store: store)
        let elapsed = ContinuousClock.now - start
        precondition(follower.index.count == Int(report["uniform"]?["count"] ?? -1), "the file holds the uniform set")
        loads.append(seconds(elapsed))
    }
    report["uniform", default: [:]]["databaseBuildSeconds"] = loads.sorted()[1]
}

let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys, .prettyPrinted])
print(String(decoding: json, as: UTF8.self))
