import MeridianHTTP
import Annotations
import MeridianAPI
import Tracking

// Domain enums → the contract's: one exhaustive switch each, so a case the contract lacks is a
// compile error here, not a silent fallback at run time.

extension Components.Schemas.AnnotationChange._TypePayload {
    init(_ kind: AnnotationChange.Kind) {
        switch kind {
        case .created: self = .created
        case .updated: self = .updated
        case .deleted: self = .deleted
        }
    }
}

extension Components.Schemas.ImportResult.StatusPayload {
    init(_ status: WriteStatus) {
        switch status {
        case .created: self = .created
        case .updated: self = .updated
        case .unchanged: self = .unchanged
        }
    }
}

extension Components.Schemas.Event._TypePayload {
    init(_ kind: TrackingEvent.Kind) {
        switch kind {
        case .initial: self = .initial
        case .significantChange: self = .significantChange
        case .enter: self = .enter
        case .exit: self = .exit
        case .dwell: self = .dwell
        case .offline: self = .offline
        case .online: self = .online
        case .stopped: self = .stopped
        case .moving: self = .moving
        case .visitArrival: self = .visitArrival
        case .visitDeparture: self = .visitDeparture
        }
    }
}

extension Components.Schemas.FixResult.ReasonPayload {
    init(_ reason: FixStatus.RejectionReason) {
        switch reason {
        case .invalidCoordinate: self = .invalidCoordinate
        case .invalidAccuracy: self = .invalidAccuracy
        case .future: self = .future
        }
    }
}

extension Components.Schemas.SkippedFix.ReasonPayload {
    init(_ reason: SkipReason) {
        switch reason {
        case .stale: self = .stale
        case .accuracy: self = .accuracy
        }
    }
}
