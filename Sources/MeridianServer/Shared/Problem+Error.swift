import MeridianHTTP
import Annotations
import Delivery
import Foundation
import Geodesy
import HTTPTypes
import MapGeometry
import NIOHTTP1
import Storage
import Tracking
import AnnotationIndex

/// The one mapping from any error to a problem: what the client did wrong is 4xx with the
/// field; anything else is a 500 with no internals.
enum ProblemMapping {
    /// The problem for an error a handler (or the runtime on its behalf) threw.
    /// - Parameters:
    ///   - fallbackStatus: the status the OpenAPI runtime chose, used for its own 4xx errors.
    ///   - cause: the runtime's description of its own errors.
    ///   - isBodyless: the request carries no body (decoding errors then concern parameters).
    static func problem(for error: any Error, fallbackStatus: HTTPResponse.Status? = nil, cause: String? = nil, isBodyless: Bool = false) -> ProblemDetails? {
        switch error {
        case let error as ProblemError:
            return error.problem
        case let error as FieldError:
            return ProblemError.invalid(pointer: JSONPointer.make(error.path), error.message).problem
        case let error as FieldErrors:
            return ProblemError.invalid(fields(error), total: error.total).problem
        case let error as GeoJSONImport.InvalidFeatures:
            return ProblemError.invalid(fields(error.errors), total: error.errors.total, several: "features are invalid; nothing was imported").problem
        case let error as GeodesyError:
            return geodesyProblem(error)
        case let error as AnnotationStoreError:
            return storeProblem(error)
        case let error as OGCError:
            return error.problem
        case let error as WebhookError:
            return webhookProblem(error)
        case let error as ThinningIndex.MissingColumn:
            return ProblemDetails(status: .serviceUnavailable, detail: "the column of property \(error.property) was dropped for others while this answer was made (more properties than the index keeps are in use); try again")
        case TrackerError.stateLost:
            return ProblemDetails(status: .serviceUnavailable, detail: "tracking is unavailable until the server restarts: a commit failed and the database could not be read back")
        case let error as DecodingError:
            return decodingProblem(error, isBodyless: isBodyless)
        case is HTTPParserError:
            return ProblemDetails(status: .badRequest, detail: "the request is not valid HTTP/1.1 (\(error)); the connection closes")
        case _ where StorageError.retryable(error) != nil:
            return storageProblem(StorageError.retryable(error) ?? .unavailable)
        default:
            if let status = fallbackStatus, (400..<500).contains(status.code) {
                return ProblemDetails(status: status, detail: cause)
            }
            return nil
        }
    }

    /// The pointers of field errors whose paths start at the body.
    static func fields(_ errors: FieldErrors) -> [ProblemDetails.FieldError] {
        errors.errors.map { .init(pointer: JSONPointer.make($0.path), detail: $0.message) }
    }

    private static func geodesyProblem(_ error: GeodesyError) -> ProblemDetails? {
        switch error {
        case .unknownCRS(let field, let identifier, let reason):
            return ProblemError.invalid(pointer: "/\(field)", "is not a coordinate reference system PROJ knows (\(identifier)): \(reason)").problem
        case .noTransformation(let source, let target, let reason):
            return ProblemError.invalid(pointer: "/target", "PROJ has no transformation from \(source) to \(target): \(reason)").problem
        case .invalidGeometry(let reason):
            return ProblemDetails(status: .unprocessableContent, detail: "invalid geometry: \(reason)")
        case .geosFailure:
            return nil
        }
    }

    /// A failure of the database a client may retry later (with `Retry-After`).
    private static func storageProblem(_ error: StorageError) -> ProblemDetails {
        switch error {
        case .full:
            return ProblemDetails(status: .init(code: 507, reasonPhrase: "Insufficient Storage"), detail: "the database has no space left; nothing was stored; retry later", retryAfter: 60)
        case .commitOutcomeUnknown:
            return ProblemDetails(status: .serviceUnavailable, detail: "the database went away while committing: the write may or may not be stored; retry it with the same Idempotency-Key (or If-Match), which cannot apply it twice", retryAfter: 1)
        default:
            return ProblemDetails(status: .serviceUnavailable, detail: "the database is not available; nothing was stored; retry later", retryAfter: 1)
        }
    }

    private static func webhookProblem(_ error: WebhookError) -> ProblemDetails {
        switch error {
        case .notFound(let id):
            return ProblemDetails(status: .notFound, detail: "no webhook has id \(id)")
        case .url(let reason):
            return ProblemError.invalid(pointer: "/url", reason.description).problem
        case .limitReached(let limit):
            // 409: the request is valid but the tenant's webhooks are at their cap; deleting one resolves it.
            return ProblemDetails(status: .conflict, detail: "the tenant has \(limit) webhooks, the most it may have; delete one before creating another")
        }
    }

    private static func storeProblem(_ error: AnnotationStoreError) -> ProblemDetails {
        switch error {
        case .notFound(let id):
            return ProblemDetails(status: .notFound, detail: "no annotation has id \(id)")
        case .gone(let id, let deletedAt):
            return ProblemDetails(status: .gone, detail: "annotation \(id) was deleted at \(deletedAt.formatted(.iso8601)); its id is never used again")
        case .versionMismatch(let id, let current):
            return ProblemDetails(status: .preconditionFailed, detail: "If-Match does not match annotation \(id): its current ETag is \"\(current)\"; nothing changed")
        case .externalIdNotFound(let externalId):
            return ProblemDetails(status: .preconditionFailed, detail: "If-Match was given but no live annotation has external id \"\(externalId)\"; nothing changed")
        case .externalIdTaken(let externalId):
            return ProblemDetails(status: .conflict, detail: "another live annotation has external id \"\(externalId)\"",
                                  errors: [.init(pointer: "/externalId", detail: "is taken by another live annotation")])
        case .idempotencyKeyReused(let key):
            // 422, as draft-ietf-httpapi-idempotency-key-header says: the key is being reused for another payload.
            return ProblemDetails(status: .unprocessableContent, detail: "Idempotency-Key \"\(key)\" was used in the last 24 hours for a request with other content",
                                  errors: [.init(parameter: "Idempotency-Key", detail: "was used for a request with other content")])
        case .idempotencyKeyInFlight(let key):
            // 409, as the draft says: the first request with this key is still being processed.
            return ProblemDetails(status: .conflict, detail: "a request with Idempotency-Key \"\(key)\" is still being processed; retry to get its answer",
                                  errors: [.init(parameter: "Idempotency-Key", detail: "is held by a request still being processed")], retryAfter: 1)
        }
    }

    private static func decodingProblem(_ error: DecodingError, isBodyless: Bool) -> ProblemDetails {
        let (path, detail): ([any CodingKey], String)
        switch error {
        case .keyNotFound(let key, let context):
            (path, detail) = (context.codingPath + [key], "is required")
        case .typeMismatch(let type, let context):
            (path, detail) = (context.codingPath, "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            (path, detail) = (context.codingPath, "must be \(describe(type)), not null")
        case .dataCorrupted(let context):
            let unknown = context.debugDescription.hasPrefix("Additional properties are disabled")
            if context.codingPath.isEmpty, isBodyless {
                // A parameter's value outside its enum: the runtime does not say which parameter.
                return ProblemDetails(status: .badRequest, detail: "a parameter has a value its enum does not list (\(context.debugDescription))")
            }
            (path, detail) = (context.codingPath, context.codingPath.isEmpty ? "is not valid JSON"
                : unknown ? "is not a field of this object (server fields such as id and version are set by the server)" : context.debugDescription)
        @unknown default:
            (path, detail) = ([], "the request could not be read")
        }
        let components = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
        let field: ProblemDetails.FieldError
        if isBodyless, let name = components.first {
            field = .init(parameter: name, detail: detail)
        } else {
            field = .init(pointer: JSONPointer.make(components), detail: detail)
        }
        let subject = field.pointer.map { $0.isEmpty ? "the body" : $0 } ?? field.parameter ?? "value"
        return ProblemDetails(status: .badRequest, detail: "\(subject) \(detail)", errors: [field])
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int64.Type: return "an integer"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default: return String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
