import Foundation
import MeridianClient
import OpenAPIRuntime
import TestSupport
import Testing

/// The annotation flows of a map app through the generated client over real HTTP: convert, create,
/// read, patch with If-Match, delete, import, export, thin, cluster leaves, a cluster tile, search.
@Suite(.watchdog) struct ClientAnnotationTests {
    /// 40 shops and 20 cafés around Portland's centre, close enough to cluster at zoom 10.
    static let places: Components.Schemas.FeatureCollection = {
        let features = (0..<60).map { (index: Int) -> Components.Schemas.Feature in
            let longitude: Double = -122.68 + Double(index % 10) * 0.002
            let latitude: Double = 45.52 + Double(index / 10) * 0.002
            let properties = Components.Schemas.FeatureProperties(externalId: "place-\(index)", title: "Place \(index)", kind: index < 40 ? "shop" : "café")
            return Components.Schemas.Feature(_type: .feature, geometry: .init(_type: .point, coordinates: [longitude, latitude]), properties: properties)
        }
        return Components.Schemas.FeatureCollection(_type: .featureCollection, features: features)
    }()

    @Test func convertsCoordinatesToMapPoints() async throws {
        try await LiveServer.withClient { meridian in
            let output = try await meridian.api.convertCoordinatesToMapPoints(
                body: .json(.init(coordinates: [.init(latitude: 0, longitude: 0), .init(latitude: 45.52, longitude: -122.681944)])))
            let points = try output.ok.body.json.mapPoints
            #expect(points.map(\.x) == [134_217_728, 42_739_440.276093155])
            #expect(points.map(\.y) == [134_217_728, 96_012_095.91233155])
        }
    }

    @Test func createReadPatchWithIfMatchAndDelete() async throws {
        try await LiveServer.withClient { meridian in
            let api = meridian.api
            let created = try await api.createAnnotation(body: .json(.init(coordinate: .init(latitude: 45.52, longitude: -122.68), title: "Powell's", kind: "shop"))).created
            let annotation = try created.body.json
            #expect(created.headers.eTag == "\"1\"")
            #expect(try await api.getAnnotation(path: .init(id: annotation.id)).ok.body.json == annotation)

            let patch = Components.Schemas.AnnotationPatch(title: "Powell's City of Books")
            let patched = try await api.patchAnnotation(path: .init(id: annotation.id), headers: .init(ifMatch: "\"1\""), body: .applicationMergePatchJson(patch)).ok
            #expect(try patched.body.json.title == "Powell's City of Books")
            #expect(try patched.body.json.version == 2)
            #expect(patched.headers.eTag == "\"2\"")

            // A stale version changes nothing: 412 with the server's problem.
            let stale = try await api.patchAnnotation(path: .init(id: annotation.id), headers: .init(ifMatch: "\"1\""), body: .applicationMergePatchJson(patch))
            let error = MeridianError(answer: stale)
            #expect(error.status == 412)
            #expect(error.answer == "preconditionFailed")

            _ = try await api.deleteAnnotation(path: .init(id: annotation.id), headers: .init(ifMatch: "\"2\"")).noContent
            #expect(MeridianError(answer: try await api.getAnnotation(path: .init(id: annotation.id))).status == 410)
        }
    }

    @Test func importsExportsAndSearchesPageByPage() async throws {
        try await LiveServer.withClient { meridian in
            let imported = try await meridian.api.importAnnotations(body: .applicationGeoJson(Self.places)).ok.body.json
            #expect(imported.created == 60)

            let exported = try await meridian.api.exportAnnotations().ok.body.applicationGeoJson
            #expect(Set(exported.features.compactMap { $0.properties?.externalId }) == Set((0..<60).map { "place-\($0)" }))

            var pages: [[Components.Schemas.Annotation]] = []
            for try await page in meridian.search("kind = 'shop' AND title LIKE 'Place 1%'", pageSize: 4) { pages.append(page) }
            // Place 1 and Place 10…19: 11 shops, so pages of 4, 4 and 3.
            #expect(pages.map(\.count) == [4, 4, 3])
            #expect(Set(pages.joined().compactMap(\.title)) == Set(["Place 1"] + (10...19).map { "Place \($0)" }))

            // A loop that stops early fetches no more pages.
            let counter = RequestCounter()
            let counted = Meridian(serverURL: meridian.serverURL, middlewares: [counter])
            for try await _ in counted.search("kind = 'shop'", pageSize: 5) { break }
            #expect(counter.count("searchAnnotations") == 1)
        }
    }

    @Test func thinsAViewAndReadsAClusterAndATile() async throws {
        try await LiveServer.withClient { meridian in
            _ = try await meridian.api.importAnnotations(body: .applicationGeoJson(Self.places)).ok
            // Portland's centre at zoom 10 in a phone-sized view: everything falls into a few cells.
            let answer = try await meridian.thin(
                .centered(on: .init(latitude: 45.525, longitude: -122.67), zoomLevel: 10, size: .init(width: 390, height: 844)))
            #expect(answer.gridZoom == 10)
            #expect(answer.annotations.count + answer.clusters.map(\.count).reduce(0, +) == 60)
            let cluster = try #require(answer.clusters.max { $0.count < $1.count })

            var leaves: [Components.Schemas.Annotation] = []
            for try await page in meridian.leaves(ofCluster: cluster.id, pageSize: 7) {
                #expect(page.count <= 7)
                leaves += page
            }
            #expect(leaves.count == cluster.count)
            #expect(Set(leaves.map(\.id)).count == cluster.count)

            // The same view said as a map rect, and with a filter, through the other overloads.
            let rect = Components.Schemas.MapRectInput(origin: .init(x: answer.visibleMapRect.origin.x, y: answer.visibleMapRect.origin.y),
                                                       size: .init(width: answer.visibleMapRect.size.width, height: answer.visibleMapRect.size.height))
            let cafés = try await meridian.thin(visibleMapRect: rect, size: .init(width: 390, height: 844), options: ThinOptions(filter: "kind = 'café'"))
            #expect(cafés.annotations.count + cafés.clusters.map(\.count).reduce(0, +) == 20)

            let tile = try await meridian.api.getClusterTile(path: .init(z: 10, x: 163, y: 366)).ok.body.applicationVnd_mapboxVectorTile
            let bytes = try await [UInt8](collecting: tile, upTo: 1 << 20)
            #expect(bytes.first == 0x1A, "a Mapbox vector tile starts with its layer (field 3, length-delimited)")
        }
    }
}
