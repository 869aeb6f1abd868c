import Annotations
import HTTPTypes
import MapGeometry
import MeridianAPI
import MeridianHTTP
import OpenAPIRuntime
import Tracking
import WireJSON

// The device registry: a device's record (PUT, PATCH), the device as a whole (GET), its erasure (DELETE).
// Conditions as for annotations: ETag `"<version>"` of the record; If-Match → 412 on another version or no record.

extension APIHandler {
    func getDevice(_ input: Operations.GetDevice.Input) async throws -> Operations.GetDevice.Output {
        let deviceId = try Self.deviceID(input.path.deviceId)
        guard let (device, eTag) = try await device(deviceId) else {
            throw ProblemError(.notFound, detail: "device \(deviceId) has no record and no accepted fix")
        }
        return .ok(.init(headers: .init(eTag: eTag), body: .json(device)))
    }

    func putDevice(_ input: Operations.PutDevice.Input) async throws -> Operations.PutDevice.Output {
        let deviceId = try Self.deviceID(input.path.deviceId)
        let body = switch input.body { case .json(let body): body.members }
        let content = try RegistryDocument.device(body)
        let condition = try Self.expectedVersion(input.headers.ifMatch)
        let (before, after) = try await tracking.tracker.writeProfile(deviceId) { current in
            try Self.check(condition, current?.version, of: "device \(deviceId)")
            return DeviceProfile(id: deviceId, content)
        }
        let (device, eTag) = try await written(after)
        if before == nil { return .created(.init(headers: .init(eTag: eTag), body: .json(device))) }
        return .ok(.init(headers: .init(eTag: eTag), body: .json(device)))
    }

    func patchDevice(_ input: Operations.PatchDevice.Input) async throws -> Operations.PatchDevice.Output {
        let deviceId = try Self.deviceID(input.path.deviceId)
        let patch = switch input.body {
        case .applicationMergePatchJson(let body): body.members
        case .json(let body): body.members
        }
        let condition = try Self.expectedVersion(input.headers.ifMatch)
        var unknown = FieldErrors()
        for key in patch.keys.sorted() where !Self.deviceMembers.contains(key) { unknown.record(at: [key], "is not a member of a device's record") }
        try unknown.check()
        let (_, after) = try await tracking.tracker.writeProfile(deviceId) { current in
            try Self.check(condition, current?.version, of: "device \(deviceId)")
            let document = current.map(RegistryDocument.document) ?? [:]
            return DeviceProfile(id: deviceId, try RegistryDocument.device(FreeProperties.merge(document, patch)))
        }
        let (device, eTag) = try await written(after)
        return .ok(.init(headers: .init(eTag: eTag), body: .json(device)))
    }

    func deleteDevice(_ input: Operations.DeleteDevice.Input) async throws -> Operations.DeleteDevice.Output {
        let deviceId = try Self.deviceID(input.path.deviceId)
        let condition = try Self.expectedVersion(input.headers.ifMatch)
        let erased = try await tracking.tracker.erase(deviceId) { current in try Self.check(condition, current?.version, of: "device \(deviceId)") }
        guard erased else { throw ProblemError(.notFound, detail: "device \(deviceId) has no record and no accepted fix") }
        return .noContent(.init())
    }

    /// The members of a device's record document.
    static let deviceMembers: Set<String> = ["name", "properties", "groups", "ingestFilters"]

    /// The device as GET answers it and its record's ETag; nil when it has neither a record nor a fix.
    private func device(_ deviceId: String) async throws -> (Components.Schemas.Device, String?)? {
        let found = try await tracking.tracker.read { state in
            let profile = state.profiles[deviceId], device = state.devices[deviceId]
            return profile != nil || device != nil ? (profile, device, state.progress(ofDevice: deviceId)) : nil
        }
        guard let (profile, device, progress) = found else { return nil }
        // Mapped here, in the request's task: exact numbers in attributes leave marks it resolves.
        return (.init(id: deviceId, profile: profile, state: device, progress: progress), profile?.eTag)
    }

    /// The device with the record this request wrote (not one written since by another) and that
    /// record's ETag; its last fix and progress as they are now.
    private func written(_ profile: DeviceProfile) async throws -> (Components.Schemas.Device, String) {
        let (device, progress) = try await tracking.tracker.read { state in (state.devices[profile.id], state.progress(ofDevice: profile.id)) }
        return (.init(id: profile.id, profile: profile, state: device, progress: progress), profile.eTag)
    }

    /// Throws 412 unless a record at `version` (nil: none) meets `condition`.
    static func check(_ condition: VersionCondition, _ version: Int64?, of subject: String) throws(ProblemError) {
        switch condition {
        case .none: return
        case .exists where version != nil: return
        case .oneOf(let versions) where version.map({ versions.contains(Int($0)) }) == true: return
        default:
            let current = version.map { "its current ETag is \"\($0)\"" } ?? "it has no record"
            throw ProblemError(.preconditionFailed, detail: "If-Match does not match \(subject): \(current); nothing changed")
        }
    }
}
