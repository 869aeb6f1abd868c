import Annotations
import Foundation
import MeridianAPI
import Testing
import TestSupport
import Timeline
import WireJSON

@testable import MeridianServer

/// The import's two readers (the direct one and the JSON tree behind the generated decoding's
/// check) and two writers must agree.
@Suite(.watchdog) struct GeoJSONImportPathsTests {
    func parse(_ text: String) -> JSONValue? {
        Array(text.utf8).withUnsafeBytes { JSONValueParser.parse($0) }
    }

    @Test func theDirectReaderAndTheTreeGiveTheSameContents() throws {
        let text = #"""
        {"type":"FeatureCollection","features":[
          {"type":"Feature","id":"x","geometry":{"type":"Point","coordinates":[-0.1,51.5,12]},"properties":{"externalId":"a","title":"A","displayPriority":700,"pop":1}},
          {"type":"Feature","geometry":{"type":"Point","coordinates":[179.9,-16.5]},"properties":{"properties":{"n":[1,{"k":null}]},"kind":"k"}},
          {"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]}}
        ]}
        """#
        // The contract's schema takes it, so the generated decoding lets it through to the tree.
        _ = try JSONDecoder().decode(Components.Schemas.FeatureCollection.self, from: Data(text.utf8))
        let tree = try #require(parse(text).flatMap(GeoJSONFeature.features(of:)))
        var direct: [ImportedFeature] = []
        #expect(Array(text.utf8).withUnsafeBytes { AnnotationFeatureReader.read($0) { direct += $0 } })
        #expect(try GeoJSONImport.imported(tree) == direct)
        #expect(direct.count == 3)
    }

    @Test(arguments: [
        #"{"type":"FeatureCollection","features":[{"geometry":null}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":[0,0]}]}"#,
        #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":[]}]}"#,
        #"{"type":"Topology","features":[]}"#, #"{"features":[]}"#,
    ])
    func shapesTheGeneratedDecodingRefusesAreLeftToIt(_ text: String) throws {
        #expect(parse(text).flatMap(GeoJSONFeature.features(of:)) == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Components.Schemas.FeatureCollection.self, from: Data(text.utf8)) }
    }
}

/// The import fast path writes its answer by hand; it must be what the generated encoder writes.
@Suite(.watchdog) struct FastImportAnswerTests {
    @Test func theHandWrittenAnswerEqualsTheGeneratedEncoding() throws {
        let generator = UUIDv7Generator()
        let results: [(id: AnnotationID, status: WriteStatus)] = [(generator.next(), .created), (generator.next(), .unchanged), (generator.next(), .updated), (generator.next(), .created)]
        let fast = ImportAnswerWriter.write(results)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let generated = try encoder.encode(Components.Schemas.ImportAnswer(results))
        #expect(fast == Array(generated))
    }
}

