public import MapGeometry
public import WireJSON

extension AnnotationContent {
    /// Fields the server sets; a patch naming them is refused.
    public static let serverFields: Set<String> = ["id", "version", "createdAt", "updatedAt"]

    /// This content with a JSON merge patch (RFC 7386) applied, then validated.
    ///
    /// `null` removes an optional field (`displayPriority` returns to 500, `properties` to `{}`);
    /// `coordinate` can change but not be removed; `properties` merge member by member.
    /// - Throws: ``FieldError`` naming the field: a server field, an unknown field, a wrong
    ///   type, or a value the rules refuse.
    public func merging(_ patch: [String: JSONValue]) throws(FieldError) -> AnnotationContent {
        var result = self
        for (field, value) in patch.sorted(by: { $0.key < $1.key }) {
            switch field {
            case _ where Self.serverFields.contains(field):
                throw FieldError(path: [field], message: "is set by the server and cannot be patched")
            case "externalId": result.externalId = try Self.optionalString(value, field)
            case "title": result.title = try Self.optionalString(value, field)
            case "subtitle": result.subtitle = try Self.optionalString(value, field)
            case "kind": result.kind = try Self.optionalString(value, field)
            case "clusteringIdentifier": result.clusteringIdentifier = try Self.optionalString(value, field)
            case "displayPriority":
                if value == .null { result.displayPriority = Self.defaultDisplayPriority; continue }
                guard case .number(let number) = value, let priority = number.plainDouble.flatMap(Self.integerPriority) else {
                    throw FieldError(path: [field], message: "must be an integer")
                }
                result.displayPriority = priority
            case "coordinate":
                result.coordinate = try Self.patchCoordinate(result.coordinate, with: value)
            case "properties":
                switch value {
                case .null: result.properties = [:]
                case .object(let members): result.properties = FreeProperties.merge(result.properties, members)
                default: throw FieldError(path: [field], message: "must be an object or null")
                }
            default:
                throw FieldError(path: [field], message: "is not a field of an annotation")
            }
        }
        try result.validate()
        return result
    }

    /// A `displayPriority` given as a JSON number: whole and of a sane size (the range is
    /// checked by ``validate()``), else nil.
    static func integerPriority(_ number: Double) -> Int? {
        number == number.rounded() && abs(number) < 1e9 ? Int(number) : nil
    }

    private static func optionalString(_ value: JSONValue, _ field: String) throws(FieldError) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        default: throw FieldError(path: [field], message: "must be a string or null")
        }
    }

    private static func patchCoordinate(_ coordinate: Coordinate, with value: JSONValue) throws(FieldError) -> Coordinate {
        guard case .object(let members) = value else {
            throw FieldError(path: ["coordinate"], message: "must be an object; an annotation always has a coordinate")
        }
        var result = coordinate
        for (field, member) in members {
            guard case .number(let number) = member else {
                throw FieldError(path: ["coordinate", field], message: "must be a number")
            }
            switch field {
            case "latitude": result.latitude = number.double
            case "longitude": result.longitude = number.double
            default: throw FieldError(path: ["coordinate", field], message: "is not a field of a coordinate")
            }
        }
        return result
    }
}
