import MeridianHTTP
import Annotations
import MapGeometry
import NIOCore
import Storage
import AnnotationIndex
import Timeline
import WireJSON

/// `POST /v1/annotations/search` and `POST /v1/annotations/nearest` read by hand: only a body
/// of the contract's members with values the generated handler would take as they are (no null,
/// no repeated key, no unknown member, numbers in range, a filter that reads); anything else is
/// declined, and the generated handler explains it. Both run the same ``AnnotationQueries`` verb
/// and answer the bytes ``AnnotationJSON`` writes, as the generated encoder would, taking each
/// annotation's from the tenant's ``EncodedAnnotations`` where it holds that version.
enum QueryRoutes {
    static func search(_ body: ByteBuffer, tenants: TenantSpace) async throws -> [UInt8]? {
        guard let members = members(body, allowed: ["filter", "limit", "cursor"]),
              let filter = members["filter"].flatMap(filter),
              let limit = limit(members["limit"], default: Paging.defaultLimit)
        else { return nil }
        var query = AnnotationQuery(limit: limit, filter: filter)
        if let cursor = members["cursor"] {
            guard case .string(let text) = cursor, let after = AnnotationID(anyUUID: text) else { return nil }
            query.after = after
        }
        let tenant = try await tenants.current()
        let (items, next) = try await tenant.queries.find(matching: query)
        return AnnotationJSON.page(try await json(of: items, tenant: tenant).compactMap { $0 }, next: next)
    }

    static func nearest(_ body: ByteBuffer, tenants: TenantSpace) async throws -> [UInt8]? {
        guard let members = members(body, allowed: ["point", "limit", "maxDistance", "filter"]),
              case .object(let point)? = members["point"], point.count == 2,
              case .number(let latitude)? = point["latitude"], case .number(let longitude)? = point["longitude"],
              let coordinate = try? Coordinate(validatingLatitude: latitude.double, longitude: longitude.double),
              let limit = limit(members["limit"], default: RequestRules.defaultNearest)
        else { return nil }
        var maxDistance: Double?
        if let given = members["maxDistance"] {
            guard case .number(let metres) = given, RequestRules.isMaxDistance(metres.double) else { return nil }
            maxDistance = metres.double
        }
        var filter: Filter?
        if let given = members["filter"] {
            guard let read = Self.filter(given) else { return nil }
            filter = read
        }
        let tenant = try await tenants.current()
        let found = try await tenant.queries.findNearest(
            to: coordinate, limit: limit, maxDistance: maxDistance, filter: filter)
        let json = try await json(of: found.map(\.found), tenant: tenant)
        return AnnotationJSON.nearest(zip(json, found).compactMap { json, item in json.map { ($0, item.distance) } })
    }

    /// Each item's JSON, in order: the held copy of the version the index names, else written from
    /// its row (the rows read in one go) or the annotation already read, and kept; nil for one
    /// deleted since the index was read.
    private static func json(of items: [AnnotationQueries.Found], tenant: TenantSpace.Tenant) async throws -> [EncodedAnnotations.Piece?] {
        let references = items.compactMap { if case .indexed(let reference) = $0 { reference } else { nil } }
        let held = tenant.encoded.copies(of: references)
        let missing = zip(references, held).compactMap { $1 == nil ? $0.id : nil }
        let rows = try await tenant.annotations.annotations(ids: missing)
        // `held` answers `references` in order: the n-th indexed item is the n-th copy.
        var position = 0
        return items.map { item in
            switch item {
            case .read(let annotation): return tenant.encoded.json(of: annotation)
            case .indexed(let reference):
                defer { position += 1 }
                return held[position].map(EncodedAnnotations.Piece.held) ?? rows[reference.id].map(tenant.encoded.json(of:))
            }
        }
    }

    /// The body's members when it is one JSON object of only `allowed` members, with no null and no repeated key.
    private static func members(_ body: ByteBuffer, allowed: Set<String>) -> [String: JSONValue]? {
        body.withUnsafeReadableBytes { bytes -> [String: JSONValue]? in
            guard JSONBodyCheck.first(in: bytes) == nil, let members = JSONValueParser.parse(bytes)?.objectValue,
                  members.keys.allSatisfy(allowed.contains) else { return nil }
            return members
        }
    }

    /// A filter member as ``RequestFilter/filter(_:)`` reads it; nil when it does not read.
    private static func filter(_ value: JSONValue) -> Filter? { try? RequestFilter.filter(value) }

    /// A `limit` member: a whole number ``RequestRules/limit(_:default:)`` takes, or `fallback` when absent.
    private static func limit(_ value: JSONValue?, default fallback: Int) -> Int? {
        guard let value else { return RequestRules.limit(nil, default: fallback) }
        guard case .number(let number) = value, let limit = number.plainDouble.flatMap({ Int(exactly: $0) }) else { return nil }
        return RequestRules.limit(limit, default: fallback)
    }
}
