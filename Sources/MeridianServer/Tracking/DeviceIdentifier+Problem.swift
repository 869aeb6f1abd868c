import HTTPTypes
import MeridianHTTP
import Tracking

extension ProblemError {
    /// 400: the device id in body member `pointer` is not one Meridian takes.
    static func invalidDevice(pointer: String) -> ProblemError {
        ProblemError(.badRequest, detail: "\(pointer) \(DeviceIdentifier.rule)", errors: [.init(pointer: pointer, detail: DeviceIdentifier.rule)])
    }

    /// 400: the device id in `parameter` (path, query or header) is not one Meridian takes.
    static func invalidDevice(parameter: String) -> ProblemError {
        ProblemError.badParameter(parameter, DeviceIdentifier.rule)
    }
}

extension DeviceIdentifier {
    /// `id` when it is a device id Meridian takes, else the 400 naming `parameter`.
    static func checked(_ id: String, parameter: String) throws(ProblemError) -> String {
        guard isValid(id) else { throw ProblemError.invalidDevice(parameter: parameter) }
        return id
    }
}
