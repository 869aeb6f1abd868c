import MapGeometry
public import WireJSON

extension AnnotationContent {
    /// The client fields as a JSON object, without absent optionals (the shape of a PUT body).
    public var jsonObject: [String: JSONValue] {
        var object: [String: JSONValue] = [
            "coordinate": .object(["latitude": .number(coordinate.latitude), "longitude": .number(coordinate.longitude)]),
            "displayPriority": .number(Double(displayPriority)),
            "properties": .object(properties),
        ]
        for (field, value) in [("externalId", externalId), ("title", title), ("subtitle", subtitle), ("kind", kind), ("clusteringIdentifier", clusteringIdentifier)] {
            if let value { object[field] = .string(value) }
        }
        return object
    }

    /// Canonical JSON of ``jsonObject`` (sorted keys): equal for equal content, however the
    /// request spelled it. Idempotency keys compare requests by it.
    public var fingerprint: String {
        JSONValue.object(jsonObject).canonicalText
    }
}

extension AnnotationContent {
    /// Equal byte for byte. `==` follows Swift's `String`, which treats canonically equivalent text
    /// (a composed and a decomposed "é") as equal; storage keeps bytes, so a change between such
    /// spellings is a change.
    public func isIdentical(to other: AnnotationContent) -> Bool {
        fingerprint.utf8.elementsEqual(other.fingerprint.utf8)
    }
}
