import MeridianAPI
import Timeline
import Tracking

extension Components.Schemas.Stop {
    init(_ stop: Tracking.Stop) {
        self.init(
            arrivalDate: stop.arrival.rfc3339, departureDate: stop.departure?.rfc3339, centre: .init(stop.centre),
            horizontalAccuracy: stop.horizontalAccuracy, duration: stop.duration, fixCount: stop.fixCount)
    }
}

extension Components.Schemas.Trip {
    init(_ trip: Tracking.Trip) {
        self.init(
            startDate: trip.start.rfc3339, endDate: trip.end.rfc3339, start: .init(trip.startCentre), end: .init(trip.endCentre),
            distance: trip.distance, duration: trip.duration, averageSpeed: trip.averageSpeed, maximumSpeed: trip.maximumSpeed,
            fixCount: trip.fixCount)
    }
}
