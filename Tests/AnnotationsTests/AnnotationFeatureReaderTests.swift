import Annotations
import Foundation
import Testing
import WireJSON

/// The direct GeoJSON reader must give exactly what the JSON-tree reader gives, or decline.
@Suite struct AnnotationFeatureReaderTests {
    func fast(_ text: String) -> [ImportedFeature]? {
        var contents: [ImportedFeature] = []
        let accepted = Array(text.utf8).withUnsafeBytes { AnnotationFeatureReader.read($0) { contents += $0 } }
        return accepted ? contents : nil
    }

    func tree(_ text: String) throws -> [ImportedFeature] {
        let features = try #require(Array(text.utf8).withUnsafeBytes { JSONValueParser.parse($0).flatMap(GeoJSONFeature.features(of:)) })
        return try GeoJSONImport.imported(features)
    }

    @Test func readsTheShippedCitiesLikeTheTreeReader() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Data/cities.geojson")
        let text = try String(contentsOf: file, encoding: .utf8)
        let contents = try #require(fast(text))
        #expect(contents.count == 34_006)
        #expect(try contents == tree(text))
    }

    @Test(arguments: [
        #"{"features":[],"type":"FeatureCollection","bbox":[0,0,1,1]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","id":7,"geometry":{"coordinates":[1.5,2.5,100],"type":"Point"},"properties":null,"extra":{"a":[1]}}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-180,90]},"properties":{"externalId":"a","title":null,"kind":"k","displayPriority":1000,"height":3,"properties":{"height":4,"x":null},"version":3,"createdAt":"2020"}}]}"#,
        #"{"type":"FeatureCollection","features":[{"geometry":{"type":"Point","coordinates":[0,0]},"type":"Feature","properties":{"clusteringIdentifier":"c","subtitle":"s \"quoted\" \u00e9"}}]}"#,
        // An exported feature names its annotation; an id that is not an annotation id names none.
        #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"019a7a3c-5f00-7c1e-8f00-000000000001","geometry":{"type":"Point","coordinates":[0,0]},"properties":{}},{"type":"Feature","id":"road-7","geometry":{"type":"Point","coordinates":[1,1]},"properties":{}}]}"#,
    ])
    func validBodiesReadTheSame(_ text: String) throws {
        let contents = try #require(fast(text))
        #expect(try contents == tree(text))
    }

    @Test func aStringFeatureIdThatIsAnAnnotationIdNamesIt() throws {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"019a7a3c-5f00-7c1e-8f00-000000000001","geometry":{"type":"Point","coordinates":[0,0]},"properties":{}},{"type":"Feature","id":"road-7","geometry":{"type":"Point","coordinates":[1,1]},"properties":{}},{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[1,1]},"properties":{}}]}"#
        let features = try #require(fast(text))
        #expect(features.map(\.id?.description) == ["019a7a3c-5f00-7c1e-8f00-000000000001", nil, nil])
    }

    @Test(arguments: [
        // Valid for the tree reader, but off the direct reader's path: it declines, the tree decides.
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"displayPriority":null}}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"title":"a","title":"b"}}]}"#,
        // Invalid: the tree reader lists the errors.
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,91]}}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"title":5}}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"displayPriority":2.5}}]}"#,
        // Not JSON or not a FeatureCollection: both decline.
        #"{"type":"FeatureCollection","features":[}"#, #"{"type":"Topology"}"#, #"[]"#,
    ])
    func everythingElseIsDeclined(_ text: String) {
        #expect(fast(text) == nil, "\(text)")
    }

    @Test func randomFeaturesReadTheSame() throws {
        var random = SystemRandomNumberGenerator()
        let keys = ["externalId", "title", "subtitle", "kind", "clusteringIdentifier", "displayPriority", "properties", "version", "id", "name", "rank", "createdAt"]
        var features: [String] = []
        for index in 0..<500 {
            var members: [String] = []
            for key in keys.shuffled(using: &random).prefix(Int.random(in: 0...keys.count, using: &random)) {
                let value: String
                switch key {
                case "externalId": value = "\"e\(index)\""
                case "displayPriority": value = String(Int.random(in: 0...1000, using: &random))
                case "properties": value = #"{"rank":\#(Int.random(in: 0...9, using: &random)),"deep":{"a":[true,null,"\n"]}}"#
                case "rank": value = String(Double.random(in: -1e6...1e6, using: &random))
                default: value = "\"\(key) \(Int.random(in: 0...99, using: &random))\""
                }
                members.append("\"\(key)\":\(value)")
            }
            let longitude = Double.random(in: -180...180, using: &random), latitude = Double.random(in: -90...90, using: &random)
            features.append(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(longitude),\#(latitude)]},"properties":{\#(members.joined(separator: ","))}}"#)
        }
        let text = #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ",\n"))]}"#
        let contents = try #require(fast(text))
        #expect(try contents == tree(text))
    }
}
