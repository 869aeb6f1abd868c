import MeridianHTTP
import Access
import Timeline

/// What the access middleware learned about the request, for handlers further down the same
/// task (the generated handlers cannot take extra parameters). Set by ``AccessMiddleware``.
enum RequestScope {
    /// The caller; nil outside a request that passed ``AccessMiddleware`` (then nothing is served).
    @TaskLocal static var principal: Principal?

    /// The caller of the current request; a request that never passed the access middleware is
    /// refused rather than served as anyone.
    static func current() throws(AccessError) -> Principal {
        guard let principal else { throw .missingCredentials }
        return principal
    }
}
