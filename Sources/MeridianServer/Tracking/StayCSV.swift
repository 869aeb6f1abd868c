import MapGeometry
import Timeline
import Tracking

/// Stops and trips as CSV for reports (RFC 4180: a header row, CRLF line ends; times RFC 3339,
/// an empty field for a stop going on; numbers as JSON writes them).
enum StayCSV {
    static func stops(_ stops: [Stop]) -> String {
        var lines = ["arrivalDate,departureDate,latitude,longitude,horizontalAccuracy,duration,fixCount"]
        for stop in stops {
            lines.append([
                stop.arrival.rfc3339, stop.departure?.rfc3339 ?? "", "\(stop.centre.latitude)", "\(stop.centre.longitude)",
                "\(stop.horizontalAccuracy)", "\(stop.duration)", "\(stop.fixCount)",
            ].joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func trips(_ trips: [Trip]) -> String {
        var lines = ["startDate,endDate,startLatitude,startLongitude,endLatitude,endLongitude,distance,duration,averageSpeed,maximumSpeed,fixCount"]
        for trip in trips {
            lines.append([
                trip.start.rfc3339, trip.end.rfc3339, "\(trip.startCentre.latitude)", "\(trip.startCentre.longitude)",
                "\(trip.endCentre.latitude)", "\(trip.endCentre.longitude)", "\(trip.distance)", "\(trip.duration)",
                "\(trip.averageSpeed)", "\(trip.maximumSpeed)", "\(trip.fixCount)",
            ].joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
