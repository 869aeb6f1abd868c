public import HTTPTypes

/// How the application names its own errors as problems (its domain errors are its to name);
/// nil for an error it does not know, which is then a logged 500 without internals.
/// - Parameters:
///   - error: what a handler (or the runtime on its behalf) threw.
///   - fallbackStatus: the status the OpenAPI runtime chose, used for its own 4xx errors.
///   - cause: the runtime's description of its own errors.
///   - isBodyless: the request carries no body (decoding errors then concern parameters).
public typealias ProblemMap = @Sendable (
    _ error: any Error, _ fallbackStatus: HTTPResponse.Status?, _ cause: String?, _ isBodyless: Bool
) -> ProblemDetails?
