import MapGeometry
import Timeline
import WireJSON

extension Filter {
    /// Whether `annotation` matches. Comparisons with a null (missing) property or between
    /// values of different types are unknown, and unknown combines as in SQL (Kleene logic); an
    /// unknown result does not match.
    public func matches(_ annotation: Annotation) -> Bool {
        evaluate(annotation) == true
    }

    /// True, false, or nil for unknown.
    func evaluate(_ annotation: Annotation) -> Bool? {
        switch self {
        case .literal(let value):
            return value
        case .and(let filters):
            var result: Bool? = true
            for filter in filters {
                switch filter.evaluate(annotation) {
                case false?: return false
                case nil: result = nil
                case true?: continue
                }
            }
            return result
        case .or(let filters):
            var result: Bool? = false
            for filter in filters {
                switch filter.evaluate(annotation) {
                case true?: return true
                case nil: result = nil
                case false?: continue
                }
            }
            return result
        case .not(let filter):
            return filter.evaluate(annotation).map(!)
        case .comparison(let op, let left, let right):
            guard let order = Self.compare(left.value(in: annotation), right.value(in: annotation)) else { return nil }
            switch op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            }
        case .like(let scalar, let pattern):
            guard case .string(let text)? = scalar.value(in: annotation) else { return nil }
            return pattern.matches(text)
        case .in(let scalar, let list):
            let value = scalar.value(in: annotation)
            var result: Bool? = false
            for item in list {
                switch Self.compare(value, item.value(in: annotation)) {
                case 0?: return true
                case nil: result = nil
                default: continue
                }
            }
            return result
        case .between(let scalar, let low, let high):
            let value = scalar.value(in: annotation)
            guard let above = Self.compare(value, low.value(in: annotation)), let below = Self.compare(value, high.value(in: annotation)) else { return nil }
            return above >= 0 && below <= 0
        case .isNull(let scalar):
            return scalar.value(in: annotation) == nil
        case .spatial(let predicate, let geometry, let pointFirst):
            return Self.holds(predicate, geometry, pointFirst: pointFirst, at: annotation.content.coordinate)
        }
    }

    /// Whether a spatial predicate holds between a point at `coordinate` and `geometry`.
    static func holds(_ predicate: SpatialPredicate, _ geometry: FilterGeometry, pointFirst: Bool, at coordinate: Coordinate) -> Bool {
        let location = geometry.locate(coordinate)
        switch (predicate, pointFirst) {
        case (.intersects, _): return location != .exterior
        // A point within a geometry: in its interior. A geometry within a point, or a point
        // containing a geometry: only the same point.
        case (.within, true), (.contains, false): return location == .interior
        case (.within, false), (.contains, true):
            if case .point(let other) = geometry { return other == coordinate }
            return false
        }
    }

    /// -1, 0, 1 for two values of one type (numbers, strings by code point, booleans false < true); nil otherwise.
    static func compare(_ a: JSONValue?, _ b: JSONValue?) -> Int? {
        switch (a, b) {
        case (.number(let x)?, .number(let y)?):
            return x < y ? -1 : x > y ? 1 : 0
        case (.string(let x)?, .string(let y)?):
            let (u, v) = (Array(x.unicodeScalars), Array(y.unicodeScalars))
            return u.lexicographicallyPrecedes(v, by: { $0.value < $1.value }) ? -1 : u == v ? 0 : 1
        case (.bool(let x)?, .bool(let y)?):
            return x == y ? 0 : (x ? 1 : -1)
        default:
            return nil
        }
    }
}

extension Filter.Scalar {
    /// The value this scalar has for `annotation`: nil when the property is missing or null.
    func value(in annotation: Annotation) -> JSONValue? {
        switch self {
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .boolean(let value): return .bool(value)
        case .property(let name): return Self.property(name, of: annotation)
        }
    }

    static func property(_ name: String, of annotation: Annotation) -> JSONValue? {
        let content = annotation.content
        switch name {
        case "id": return .string(annotation.id.description)
        case "kind": return content.kind.map(JSONValue.string)
        case "clusteringIdentifier": return content.clusteringIdentifier.map(JSONValue.string)
        case "title": return content.title.map(JSONValue.string)
        case "subtitle": return content.subtitle.map(JSONValue.string)
        case "externalId": return content.externalId.map(JSONValue.string)
        case "displayPriority": return .number(Double(content.displayPriority))
        default:
            var value: JSONValue? = .object(content.properties)
            for part in name.split(separator: ".", omittingEmptySubsequences: false) {
                guard case .object(let members)? = value else { return nil }
                value = members[String(part)]
            }
            return value == .null ? nil : value
        }
    }
}
