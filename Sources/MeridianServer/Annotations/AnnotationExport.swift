public import Annotations
public import Foundation
import MeridianHTTP
import WireJSON
import MeridianAPI
import OpenAPIRuntime

/// The GeoJSON FeatureCollection `GET /v1/annotations/export` answers, for the command line too.
public enum AnnotationExport {
    /// `annotations` as the export endpoint writes them (the same mapping and encoder, numbers exact).
    public static func featureCollection(_ annotations: [Annotation]) throws -> Data {
        let collection = Components.Schemas.FeatureCollection(_type: .featureCollection, features: annotations.map(Components.Schemas.Feature.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Data(try ExactNumbers.encoding { try [UInt8](encoder.encode(collection)) })
    }
}
