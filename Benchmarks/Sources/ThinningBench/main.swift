// Issue 5's in-process figures for the thinning index, as JSON on stdout: the index's bytes,
// the index's share of a write (applied in batches as the follower applies the feed), writes as
// the server takes them (through the SQLite store, one transaction each, until the next thin
// answer includes them, while answers run) and the load from a SQLite database.
//
//     ThinningBench DATA_DIR [DATABASE_PATH]
//
// With THINNING_SERVE_SET=<set>, one set's index built in a fresh process (its build time and
// resident growth printed as a JSON line), then each view standard input names measured, a JSON
// line each: bench-thinning.py alternates them with pysupercluster's, so the views' figures (plain
// and with two aggregated properties) all come from there. THINNING_QUERIES_ONLY prints the views
// of every set on standard error instead, for a quick look while optimising.
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

/// Queries per measured view (bench-thinning.py gives pysupercluster the same count): enough that
/// each view is measured over 10 ms or more, so a burst of the shared host's other work does not
/// decide a p95 (2 000 answers of 0.6 µs took a millisecond, and one busy millisecond put a view's
/// p95 at twice its p50). The world view of a million points takes 60–120 µs an answer.
func viewRuns(world: Bool, points: Int) -> Int {
    world && points >= 100_000 ? 1_000 : 20_000
}

/// The views the table measures (1024×768): the world at zoom 2 centred on (0, 0), and the set's city at zoom 12.
func views(_ dataset: DatasetInfo) -> [(name: String, centre: Coordinate, zoom: Int, runs: Int)] {
    [("world", Coordinate(latitude: 0, longitude: 0), 2, viewRuns(world: true, points: dataset.count)),
     ("city", Coordinate(latitude: dataset.city.latitude, longitude: dataset.city.longitude), 12, viewRuns(world: false, points: dataset.count))]
}

/// Two numeric properties on every point (as a request's `aggregates` names them), their columns built.
func addAggregatedColumns(_ index: ThinningIndex, _ entries: [ThinningEntry]) {
    var random = SystemRandomNumberGenerator()
    index.addColumn("population", values: entries.map { ($0.id, Double(Int.random(in: 0...1_000_000, using: &random))) })
    index.addColumn("score", values: entries.map { ($0.id, Double.random(in: 0...10, using: &random)) })
}

/// A thin request's options aggregating both columns of ``addAggregatedColumns(_:_:)``.
let aggregating = ThinningOptions(aggregates: ["population", "score"])

/// Rounds of measurements compared with each other, taken in turn (the median of each is
/// reported): a burst of the shared host's other work falls on one round of one side, not on the
/// ratio. bench-thinning.py takes its alternating rounds likewise.
let alternatingRounds = 5

/// World and city p50/p95 plain and with both columns aggregated, alternating (``THINNING_QUERIES_ONLY``).
func aggregateTimes(_ index: ThinningIndex, _ dataset: DatasetInfo) throws -> [String: Double] {
    var figures: [String: Double] = [:]
    for (name, centre, zoom, runs) in views(dataset) {
        let rect = try view(centre, zoom: Double(zoom))
        var plain: [(p50: Double, p95: Double, items: Int)] = [], aggregated: [(p50: Double, p95: Double, items: Int)] = []
        for _ in 0..<alternatingRounds {
            plain.append(try queryTimes(index, rect, zoom: zoom, runs: runs))
            aggregated.append(try queryTimes(index, rect, zoom: zoom, runs: runs, options: aggregating))
        }
        figures["\(name)PlainP95"] = percentile(plain.map(\.p95), 0.5)
        figures["\(name)AggregatesP95"] = percentile(aggregated.map(\.p95), 0.5)
        figures["\(name)PlainP50"] = percentile(plain.map(\.p50), 0.5)
        figures["\(name)AggregatesP50"] = percentile(aggregated.map(\.p50), 0.5)
    }
    return figures
}

/// A message on standard error, then exit with status 2.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ThinningBench: \(message)\n".utf8))
    exit(2)
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
    // For bench-thinning.py's alternating rounds: one set's index built in this fresh process
    // (its build time and resident growth, as pysupercluster's process measures its own, and the
    // query count of each view), then each line of standard input, "<view> <queries>" or
    // "<view>+aggregates <queries>", measured, its figures a JSON line on standard output.
    guard let dataset = datasets.first(where: { $0.name == name }) else { fail("no set \(name) in \(directory)") }
    let all = entries(from: try load("\(directory)/\(dataset.name).f64"))
    FreedMemory.release()
    let before = residentBytes()
    var index: ThinningIndex!
    let build = seconds { index = ThinningIndex(entries: all, sequence: 0) }
    FreedMemory.release()  // as the follower does once it has built the indexes
    let growth = withExtendedLifetime(all) { residentBytes() - before }  // the entries are not the index's
    addAggregatedColumns(index, all)
    let measured = views(dataset)
    let runs = measured.map { "\"\($0.name)\": \($0.runs)" }.joined(separator: ", ")
    FileHandle.standardOutput.write(Data("{\"buildSeconds\": \(build), \"residentGrowthBytes\": \(growth), \"runs\": {\(runs)}}\n".utf8))
    while let line = readLine() {
        let words = line.split(separator: " ")
        let aggregated = words.first?.hasSuffix("+aggregates") == true
        let name = words.first.map { String($0.dropLast(aggregated ? "+aggregates".count : 0)) }
        guard words.count == 2, let runs = Int(words[1]), runs > 0, let (_, centre, zoom, _) = measured.first(where: { $0.name == name }) else {
            fail("not a view and a query count: \(line)")
        }
        let times = try queryTimes(index, view(centre, zoom: Double(zoom)), zoom: zoom, runs: runs, options: aggregated ? aggregating : nil)
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
    let build = seconds { index = ThinningIndex(entries: all, sequence: 0) }
    FreedMemory.release()  // as the follower does once it has built the indexes
    figures["indexBytes"] = Double(index.memoryFootprint)
    let environment = ProcessInfo.processInfo.environment
    if let seconds = environment["THINNING_PROFILE_SECONDS"].flatMap(Double.init), environment["THINNING_PROFILE_SET"] == dataset.name {
        // For perf: one view of one set over and over (THINNING_PROFILE_ZOOM 12, the city, or 2, the world), then stop.
        let zoom = environment["THINNING_PROFILE_ZOOM"].flatMap(Double.init) ?? 12
        let centre = Coordinate(latitude: dataset.city.latitude, longitude: dataset.city.longitude)
        let rect = try view(zoom < 6 ? Coordinate(latitude: 0, longitude: 0) : centre, zoom: zoom), until = ContinuousClock.now + .seconds(seconds)
        let grid = ThinningGrid(zoom: Int(zoom), cellSize: ThinningGrid.defaultCellSize)
        // Printed at the end: the thread's CPU time per answer (steal time on a shared host is not in it).
        func cpuSeconds() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        // THINNING_PROFILE_AGGREGATES: the same view with two aggregated properties.
        let options = environment["THINNING_PROFILE_AGGREGATES"] != nil ? aggregating : nil
        if options != nil { addAggregatedColumns(index, all) }
        var answers = 0
        let cpu = cpuSeconds()
        while ContinuousClock.now < until {
            for _ in 0..<1000 { _ = try options.map { try index.thin(rect, grid: grid, options: $0) } ?? index.thin(rect, grid: grid) }
            answers += 1000
        }
        FileHandle.standardError.write(Data(String(format: "%d answers, %.3f µs of CPU each\n", answers, (cpuSeconds() - cpu) / Double(answers) * 1e6).utf8))
        exit(0)
    }
    if environment["THINNING_QUERIES_ONLY"] != nil {
        // For a quick look while optimising: the views alone, in this process.
        addAggregatedColumns(index, all)
        let times = try aggregateTimes(index, dataset)
        FileHandle.standardError.write(Data(String(format: "%@ world p95 %.4f ms, city p95 %.4f ms, build %.3f s; +2 aggregates: world %.2f× (p50 %.2f×), city %.2f× (p50 %.2f×)\n",
            dataset.name, times["worldPlainP95"]! * 1e3, times["cityPlainP95"]! * 1e3, build,
            times["worldAggregatesP95"]! / times["worldPlainP95"]!, times["worldAggregatesP50"]! / times["worldPlainP50"]!,
            times["cityAggregatesP95"]! / times["cityPlainP95"]!, times["cityAggregatesP50"]! / times["cityPlainP50"]!).utf8))
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
