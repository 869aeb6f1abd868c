public import MapGeometry
public import WireJSON

/// The JSON documents of the registry (a device's `{name, properties, groups, ingestFilters}`, a
/// group's `{properties, ingestFilters}`) read into their content, every invalid member listed at
/// its path, and written back (what a merge patch applies to). One reader for PUT and PATCH: a
/// PATCH is the current document merged with the patch (RFC 7386), read like a PUT.
public enum RegistryDocument {
    /// What a device's document holds.
    public struct DeviceContent: Hashable, Sendable {
        public var name: String?
        public var properties: [String: JSONValue] = [:]
        public var groups: [String] = []
        public var ingestFilters: IngestFilters?
    }

    /// What a group's document holds.
    public struct GroupContent: Hashable, Sendable {
        public var properties: [String: JSONValue] = [:]
        public var ingestFilters: IngestFilters?
    }

    /// Reads a device's document; a member `null` is the same as absent.
    public static func device(_ members: [String: JSONValue]) throws(FieldErrors) -> DeviceContent {
        var errors = FieldErrors()
        refuseUnknown(members, known: ["name", "properties", "groups", "ingestFilters"], &errors)
        var content = DeviceContent()
        switch members["name"] {
        case nil, .null?: break
        case .string(let name)?: content.name = errors.value { () throws(FieldError) in try Subscription.check(name: name); return name }
        default: errors.record(at: ["name"], "must be a string or null")
        }
        content.properties = properties(members["properties"], &errors)
        switch members["groups"] {
        case nil, .null?: break
        case .array(let items)?:
            if items.count > DeviceProfile.maxGroups { errors.record(at: ["groups"], "must list at most \(DeviceProfile.maxGroups) groups, got \(items.count)") }
            for (index, item) in items.enumerated() {
                guard case .string(let name) = item, DeviceGroup.isValid(name: name) else { errors.record(at: ["groups", String(index)], DeviceGroup.nameRule); continue }
                if content.groups.contains(name) { errors.record(at: ["groups", String(index)], "must not repeat a group") } else { content.groups.append(name) }
            }
        default: errors.record(at: ["groups"], "must be an array of group names or null")
        }
        content.ingestFilters = ingestFilters(members["ingestFilters"], &errors)
        try errors.check()
        return content
    }

    /// Reads a group's document; a member `null` is the same as absent.
    public static func group(_ members: [String: JSONValue]) throws(FieldErrors) -> GroupContent {
        var errors = FieldErrors()
        refuseUnknown(members, known: ["properties", "ingestFilters"], &errors)
        let content = GroupContent(properties: properties(members["properties"], &errors), ingestFilters: ingestFilters(members["ingestFilters"], &errors))
        try errors.check()
        return content
    }

    /// A device profile's document (absent members left out), the target of a merge patch.
    public static func document(_ profile: DeviceProfile) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if let name = profile.name { members["name"] = .string(name) }
        if !profile.properties.isEmpty { members["properties"] = .object(profile.properties) }
        if !profile.groups.isEmpty { members["groups"] = .array(profile.groups.map(JSONValue.string)) }
        if let filters = profile.ingestFilters { members["ingestFilters"] = .object(document(filters)) }
        return members
    }

    /// Ingest filters as their JSON object (rules that are off left out).
    public static func document(_ filters: IngestFilters) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for rule in IngestFilters.Rule.allCases {
            if let value = filters[rule] { members[rule.rawValue] = .number(JSONNumber(value)) }
        }
        return members
    }

    private static func refuseUnknown(_ members: [String: JSONValue], known: Set<String>, under path: [String] = [], _ errors: inout FieldErrors) {
        for key in members.keys.sorted() where !known.contains(key) { errors.record(at: path + [key], "is not a member of this document") }
    }

    private static func properties(_ value: JSONValue?, _ errors: inout FieldErrors) -> [String: JSONValue] {
        switch value {
        case nil, .null?: return [:]
        case .object(let members)?:
            return errors.value { () throws(FieldError) in try Subscription.check(properties: members); return members } ?? [:]
        default:
            errors.record(at: ["properties"], "must be a JSON object or null")
            return [:]
        }
    }

    /// The schema `IngestFilters`: each rule a number or null (off); none but these members.
    private static func ingestFilters(_ value: JSONValue?, _ errors: inout FieldErrors) -> IngestFilters? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?:
            refuseUnknown(members, known: Set(IngestFilters.Rule.allCases.map(\.rawValue)), under: ["ingestFilters"], &errors)
            var filters = IngestFilters()
            for rule in IngestFilters.Rule.allCases {
                switch members[rule.rawValue] {
                case nil, .null?: continue
                case .number(let number)?: filters[rule] = number.double
                default: errors.record(at: ["ingestFilters", rule.rawValue], "must be a number or null")
                }
            }
            // The limits of each setting: the same check as the tenant's settings.
            filters.check(at: ["ingestFilters"], into: &errors)
            return filters
        default:
            errors.record(at: ["ingestFilters"], "must be an object of ingest filters or null")
            return nil
        }
    }
}

extension IngestFilters {
    /// The setting of `rule` (nil: off).
    public subscript(rule: Rule) -> Double? {
        get {
            switch rule {
            case .maxHorizontalAccuracy: maxHorizontalAccuracy
            case .minDistance: minDistance
            case .minInterval: minInterval
            case .maxSpeed: maxSpeed
            }
        }
        set {
            switch rule {
            case .maxHorizontalAccuracy: maxHorizontalAccuracy = newValue
            case .minDistance: minDistance = newValue
            case .minInterval: minInterval = newValue
            case .maxSpeed: maxSpeed = newValue
            }
        }
    }
}
