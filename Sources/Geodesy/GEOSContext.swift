import CGEOS

/// One GEOS context handle and the messages GEOS reported through it.
///
/// Contexts are made per operation and never shared across threads (GEOS's reentrant API).
final class GEOSContext {
    let handle: GEOSContextHandle_t
    private(set) var messages: [String] = []

    init() throws(GeodesyError) {
        // GEOS_init_r returns NULL only when out of memory.
        guard let handle = GEOS_init_r() else { throw .geosFailure(messages: ["GEOS could not create a context"]) }
        self.handle = handle
        GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            let context = Unmanaged<GEOSContext>.fromOpaque(userData).takeUnretainedValue()
            context.messages.append(String(cString: message))
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// The failure to throw after a GEOS call signalled an error.
    var failure: GeodesyError { .geosFailure(messages: messages) }

    /// Throws ``GeodesyError/invalidGeometry(reason:)`` with GEOS's reason unless `geometry` is
    /// valid in the OGC sense.
    func validate(_ geometry: OpaquePointer) throws(GeodesyError) {
        // GEOSisValid_r: 1 valid, 0 invalid, 2 exception.
        switch GEOSisValid_r(handle, geometry) {
        case 1: return
        case 0:
            guard let reason = GEOSisValidReason_r(handle, geometry) else { throw failure }
            defer { GEOSFree_r(handle, reason) }
            throw .invalidGeometry(reason: String(cString: reason))
        default: throw failure
        }
    }
}
