import HTTPTypes
import MeridianAPI
import MeridianHTTP
import OpenAPIRuntime
import Timeline
import Tracking

// Group records: the settings (ingest filters, free properties) of the devices that name a group.

extension APIHandler {
    func listDeviceGroups(_ input: Operations.ListDeviceGroups.Input) async throws -> Operations.ListDeviceGroups.Output {
        let limit = try Paging.limit(input.query.limit)
        let cursor = input.query.cursor
        let page = try await tracking.tracker.read { state in
            state.groups.values.filter { group in cursor.map { group.name > $0 } ?? true }.sorted { $0.name < $1.name }.prefix(limit + 1)
        }
        let groups = page.prefix(limit).map(Components.Schemas.DeviceGroup.init)
        return .ok(.init(body: .json(.init(groups: groups, nextCursor: page.count > limit ? groups.last?.name : nil))))
    }

    func getDeviceGroup(_ input: Operations.GetDeviceGroup.Input) async throws -> Operations.GetDeviceGroup.Output {
        let name = try Self.groupName(input.path.group)
        guard let group = try await tracking.tracker.read({ $0.groups[name] }) else { throw Self.unknownGroup(name) }
        return .ok(.init(headers: .init(eTag: "\"\(group.version)\""), body: .json(.init(group))))
    }

    func putDeviceGroup(_ input: Operations.PutDeviceGroup.Input) async throws -> Operations.PutDeviceGroup.Output {
        let name = try Self.groupName(input.path.group)
        let body = switch input.body { case .json(let body): body.members }
        let content = try RegistryDocument.group(body)
        let condition = try Self.expectedVersion(input.headers.ifMatch)
        let (before, after) = try await tracking.tracker.writeGroup(name) { current in
            try Self.check(condition, current?.version, of: "group \(name)")
            return Tracking.DeviceGroup(name: name, properties: content.properties, ingestFilters: content.ingestFilters, updatedAt: .init(microseconds: 0))
        }
        guard let after else { throw Self.unknownGroup(name) }
        let eTag = "\"\(after.version)\""
        if before == nil { return .created(.init(headers: .init(eTag: eTag), body: .json(.init(after)))) }
        return .ok(.init(headers: .init(eTag: eTag), body: .json(.init(after))))
    }

    func deleteDeviceGroup(_ input: Operations.DeleteDeviceGroup.Input) async throws -> Operations.DeleteDeviceGroup.Output {
        let name = try Self.groupName(input.path.group)
        let condition = try Self.expectedVersion(input.headers.ifMatch)
        let (before, _) = try await tracking.tracker.writeGroup(name) { current in
            try Self.check(condition, current?.version, of: "group \(name)")
            return nil
        }
        guard before != nil else { throw Self.unknownGroup(name) }
        return .noContent(.init())
    }

    static func groupName(_ text: String) throws(ProblemError) -> String {
        guard DeviceGroup.isValid(name: text) else {
            throw ProblemError.badParameter("group", DeviceGroup.nameRule)
        }
        return text
    }

    private static func unknownGroup(_ name: String) -> ProblemError {
        ProblemError(.notFound, detail: "group \(name) has no record (devices may name it all the same)")
    }
}
