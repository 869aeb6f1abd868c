public import HTTPTypes

/// The error handlers throw for a problem+json answer; built once, mapped to HTTP in one place.
public struct ProblemError: Error, Sendable, CustomStringConvertible {
    public let problem: ProblemDetails
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: problem.status) }

    public init(_ status: HTTPResponse.Status, detail: String?, errors: [ProblemDetails.FieldError]? = nil) {
        problem = ProblemDetails(status: status, detail: detail, errors: errors)
    }

    public init(_ problem: ProblemDetails) {
        self.problem = problem
    }

    /// 422: the request was read, but values in it cannot be used.
    /// - Parameters:
    ///   - total: how many were found, when more than the listed `errors`.
    ///   - several: what the detail says after the count when there are several.
    public static func invalid(_ errors: [ProblemDetails.FieldError], total: Int? = nil, several: String = "values are invalid") -> ProblemError {
        let count = total ?? errors.count
        let detail = count == 1 ? "\(errors[0].pointer ?? errors[0].parameter ?? "value") \(errors[0].detail)"
            : "\(count) \(several)"
        return ProblemError(.unprocessableContent, detail: detail, errors: errors)
    }

    /// 400 for one query, path or header parameter: "`parameter` `detail`", the parameter named in `errors`.
    public static func badParameter(_ parameter: String, _ detail: String) -> ProblemError {
        ProblemError(.badRequest, detail: "\(parameter) \(detail)", errors: [.init(parameter: parameter, detail: detail)])
    }

    /// 422 for one field of the body.
    public static func invalid(pointer: String, _ detail: String) -> ProblemError {
        invalid([.init(pointer: pointer, detail: detail)])
    }

    public var description: String { "\(problem.status) \(problem.title): \(problem.detail ?? "")" }
}
