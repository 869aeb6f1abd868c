import MapGeometry
import MeridianAPI
import MeridianHTTP
import OpenAPIRuntime
import Timeline
import Tracking
import WireJSON

// Events and fixes on the wire, both encodings: the generated types' mapping (fix times are RFC 3339
// strings parsed here to the microsecond; the runtime's date transcoder keeps milliseconds, which
// would merge distinct fixes) and the direct writer of ingest answers, which must write the same
// bytes (WirePropertyTests).

extension LocationFix {
    /// A fix from the wire; nil when its timestamp is not RFC 3339. Coordinates and accuracy are
    /// not checked here: a bad one is a per-fix `rejected` status, not an error.
    /// `path` is where the fix is in the request body, to read its attributes' numbers exactly.
    init?(_ wire: Components.Schemas.Fix, at path: [String]) {
        guard let timestamp = Instant(rfc3339: wire.timestamp) else { return nil }
        self.init(
            coordinate: Coordinate(latitude: wire.coordinate.latitude, longitude: wire.coordinate.longitude), timestamp: timestamp,
            horizontalAccuracy: wire.horizontalAccuracy, speed: wire.speed, course: wire.course,
            altitude: wire.altitude, verticalAccuracy: wire.verticalAccuracy,
            attributes: JSONValue.members(of: wire.attributes, at: path + ["attributes"])
        )
    }
}

extension Components.Schemas.Fix {
    /// The fix as the generated handlers answer it (``TrackingJSON`` writes the same bytes).
    init(_ fix: LocationFix) {
        self.init(
            coordinate: .init(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude), timestamp: fix.timestamp.rfc3339, horizontalAccuracy: fix.horizontalAccuracy,
            speed: fix.speed, course: fix.course, altitude: fix.altitude, verticalAccuracy: fix.verticalAccuracy,
            attributes: fix.attributes.isEmpty ? nil : OpenAPIObjectContainer(fix.attributes)
        )
    }
}

extension Components.Schemas.Event {
    /// The event as the generated handlers answer it (``TrackingJSON`` writes the same bytes).
    init(_ event: TrackingEvent) {
        self.init(
            id: event.id, sequence: event.sequence, subscriptionId: event.subscriptionId, subscriptionName: event.subscriptionName,
            subscriptionProperties: event.subscriptionProperties.isEmpty ? nil : OpenAPIObjectContainer(event.subscriptionProperties),
            deviceId: event.deviceId, _type: .init(event.kind), reason: event.reason.flatMap(ReasonPayload.init(rawValue:)),
            location: .init(event.location), previousLocation: event.previousLocation.map(Components.Schemas.Fix.init),
            occurredAt: event.occurredAt.rfc3339, recordedAt: event.recordedAt.rfc3339,
            visit: event.visit.map(Components.Schemas.Visit.init),
            interpolated: event.interpolated ? true : nil
        )
    }
}

extension Components.Schemas.Visit {
    init(_ visit: Visit) {
        self.init(
            centre: .init(visit.centre), horizontalAccuracy: visit.horizontalAccuracy, arrivalDate: visit.arrival.rfc3339,
            departureDate: visit.departure?.rfc3339)
    }
}

extension Components.Schemas.LoggedEvent {
    /// The event as the log reads it: whole, or its stub once its device was erased.
    init(_ event: TrackingEvent) {
        self = event.erased ? .ErasedEvent(.init(sequence: event.sequence, erased: true)) : .Event(.init(event))
    }
}

extension TrackingJSON {
    /// An Event, or an ErasedEvent for an event whose device was erased.
    static func write(_ event: TrackingEvent, to json: inout JSONWriter) {
        if event.erased {
            json.raw("{\"erased\":true,\"sequence\":"); json.raw(String(event.sequence)); json.raw("}")
            return
        }
        json.raw("{\"deviceId\":"); json.string(event.deviceId)
        json.raw(",\"id\":"); json.string(event.id)
        if event.interpolated { json.raw(",\"interpolated\":true") }
        json.raw(",\"location\":"); write(event.location, to: &json)
        json.raw(",\"occurredAt\":"); json.string(event.occurredAt.rfc3339)
        if let previous = event.previousLocation { json.raw(",\"previousLocation\":"); write(previous, to: &json) }
        if let reason = event.reason { json.raw(",\"reason\":"); json.string(reason) }
        json.raw(",\"recordedAt\":"); json.string(event.recordedAt.rfc3339)
        json.raw(",\"sequence\":"); json.raw(String(event.sequence))
        json.raw(",\"subscriptionId\":"); json.string(event.subscriptionId)
        if let name = event.subscriptionName { json.raw(",\"subscriptionName\":"); json.string(name) }
        if !event.subscriptionProperties.isEmpty { json.raw(",\"subscriptionProperties\":"); json.value(.object(event.subscriptionProperties)) }
        json.raw(",\"type\":"); json.string(event.kind.rawValue)
        if let visit = event.visit { json.raw(",\"visit\":"); write(visit, to: &json) }
        json.raw("}")
    }

    /// A Visit.
    static func write(_ visit: Visit, to json: inout JSONWriter) {
        json.raw("{\"arrivalDate\":"); json.string(visit.arrival.rfc3339)
        json.raw(",\"centre\":{\"latitude\":"); json.number(visit.centre.latitude)
        json.raw(",\"longitude\":"); json.number(visit.centre.longitude); json.raw("}")
        if let departure = visit.departure { json.raw(",\"departureDate\":"); json.string(departure.rfc3339) }
        json.raw(",\"horizontalAccuracy\":"); json.number(visit.horizontalAccuracy)
        json.raw("}")
    }

    /// A Fix.
    static func write(_ fix: LocationFix, to json: inout JSONWriter) {
        var first = true
        func key(_ name: StaticString) {
            json.raw(first ? "{" : ",")
            json.raw(name)
            first = false
        }
        if let altitude = fix.altitude { key("\"altitude\":"); json.number(altitude) }
        if !fix.attributes.isEmpty { key("\"attributes\":"); json.value(.object(fix.attributes)) }
        key("\"coordinate\":{\"latitude\":"); json.number(fix.coordinate.latitude)
        json.raw(",\"longitude\":"); json.number(fix.coordinate.longitude); json.raw("}")
        if let course = fix.course { key("\"course\":"); json.number(course) }
        key("\"horizontalAccuracy\":"); json.number(fix.horizontalAccuracy)
        if let speed = fix.speed { key("\"speed\":"); json.number(speed) }
        key("\"timestamp\":"); json.string(fix.timestamp.rfc3339)
        if let vertical = fix.verticalAccuracy { key("\"verticalAccuracy\":"); json.number(vertical) }
        json.raw("}")
    }
}
