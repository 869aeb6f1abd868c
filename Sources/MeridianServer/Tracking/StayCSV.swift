import MapGeometry
import Timeline
import Tracking
import WireJSON

/// Stops and trips as CSV for reports (RFC 4180: a header row, CRLF line ends; times RFC 3339,
/// an empty field for a stop going on; numbers written as the JSON answer writes them).
enum StayCSV {
    static func stops(_ stops: [Stop]) -> String {
        table(["arrivalDate", "departureDate", "latitude", "longitude", "horizontalAccuracy", "duration", "fixCount"], stops.map { stop in
            [stop.arrival.rfc3339, stop.departure?.rfc3339 ?? "", number(stop.centre.latitude), number(stop.centre.longitude),
             number(stop.horizontalAccuracy), number(stop.duration), String(stop.fixCount)]
        })
    }

    static func trips(_ trips: [Trip]) -> String {
        table(["startDate", "endDate", "startLatitude", "startLongitude", "endLatitude", "endLongitude", "distance", "duration",
               "averageSpeed", "maximumSpeed", "fixCount"], trips.map { trip in
            [trip.start.rfc3339, trip.end.rfc3339, number(trip.startCentre.latitude), number(trip.startCentre.longitude),
             number(trip.endCentre.latitude), number(trip.endCentre.longitude), number(trip.distance), number(trip.duration),
             number(trip.averageSpeed), number(trip.maximumSpeed), String(trip.fixCount)]
        })
    }

    /// No field needs quoting: times, numbers and empty fields only.
    private static func table(_ header: [String], _ rows: [[String]]) -> String {
        ([header] + rows).map { $0.joined(separator: ",") + "\r\n" }.joined()
    }

    private static func number(_ value: Double) -> String {
        var json = JSONWriter(capacity: 24)
        json.number(value)
        return json.text
    }
}
