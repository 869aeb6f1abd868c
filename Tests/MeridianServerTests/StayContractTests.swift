import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// Visits subscriptions and `GET /v1/devices/{deviceId}/stops` and `/trips`, JSON and CSV.
@Suite(.watchdog) struct StayContractTests {
    struct Point: Decodable { var latitude: Double; var longitude: Double }
    struct Stop: Decodable { var arrivalDate: String; var departureDate: String?; var centre: Point; var horizontalAccuracy: Double; var duration: Double; var fixCount: Int }
    struct StopPage: Decodable { var stops: [Stop]; var nextFrom: String? }
    struct Trip: Decodable {
        var startDate: String, endDate: String, start: Point, end: Point
        var distance: Double, duration: Double, averageSpeed: Double, maximumSpeed: Double, fixCount: Int
    }
    struct TripPage: Decodable { var trips: [Trip]; var nextFrom: String? }
    struct Visit: Decodable { var centre: Point; var horizontalAccuracy: Double; var arrivalDate: String; var departureDate: String? }
    struct VisitEvent: Decodable { var type: String; var occurredAt: String; var location: WireFix; var visit: Visit? }
    struct VisitEvents: Decodable { var events: [VisitEvent] }

    /// Three stops 1.5 km apart along the trace (8, 10 and 6 minutes, fixes every 60 s within 10 m
    /// of the spot), with drives of a fix every 30 s at 300 m a step between them; the last stop goes on.
    static let spots = [0.0, 1_500, 3_000]
    static var day: (fixes: [String], stops: [[Coordinate]], drives: [[Coordinate]], times: [(arrival: Double, departure: Double)]) {
        var fixes: [String] = [], stops: [[Coordinate]] = [], drives: [[Coordinate]] = [], times: [(Double, Double)] = []
        var t = 0.0
        for (index, spot) in spots.enumerated() {
            let minutes = [8, 10, 6][index]
            var here: [Coordinate] = []
            for i in 0...minutes { here.append(Trace.at(spot + Double(i % 3) * 5)) }
            times.append((t, t + Double(minutes) * 60))
            for (i, c) in here.enumerated() { fixes.append(Trace.fix(c, t + Double(i) * 60)) }
            t += Double(minutes) * 60 + 30
            stops.append(here)
            guard index < spots.count - 1 else { break }
            let drive = (1...4).map { Trace.at(spot + 300 * Double($0)) }
            for c in drive { fixes.append(Trace.fix(c, t)); t += 30 }
            drives.append(drive)
        }
        return (fixes, stops, drives, times)
    }

    /// The mean of equally accurate fixes.
    static func mean(_ points: [Coordinate]) -> Coordinate {
        Coordinate(latitude: points.map(\.latitude).reduce(0, +) / Double(points.count), longitude: points.map(\.longitude).reduce(0, +) / Double(points.count))
    }

    static func metres(_ a: Point, _ b: Coordinate) -> Double {
        Geodesic.wgs84.inverse(from: Coordinate(latitude: a.latitude, longitude: a.longitude), to: b).distance
    }

    @Test func stopsAreTheStaysWithTheOngoingOneWithoutDeparture() async throws {
        try await TestApp.withClient { client in
            let day = Self.day
            _ = try await client.postFixes("van-1", day.fixes)
            let page = try await client.get("/v1/devices/van-1/stops", as: StopPage.self)
            #expect(page.stops.count == 3 && page.nextFrom == nil)
            for (index, stop) in page.stops.enumerated() {
                #expect(stop.arrivalDate == Trace.time(day.times[index].arrival))
                #expect(Self.metres(stop.centre, Self.mean(day.stops[index])) < 0.001)
                #expect(close(stop.horizontalAccuracy, 5 / Double(day.stops[index].count).squareRoot(), 1e-9))
                #expect(stop.fixCount == day.stops[index].count)
            }
            #expect(page.stops[0].departureDate == Trace.time(day.times[0].departure) && page.stops[0].duration == 480)
            #expect(page.stops[2].departureDate == nil && page.stops[2].duration == 360)
            // Shorter stays do not count; a bigger minimum leaves only the 10-minute stop.
            let long = try await client.get("/v1/devices/van-1/stops?minimumDuration=540", as: StopPage.self)
            #expect(long.stops.map(\.arrivalDate) == [Trace.time(day.times[1].arrival)])
        }
    }

    @Test func tripsRunBetweenStopCentresThroughTheFixesBetween() async throws {
        try await TestApp.withClient { client in
            let day = Self.day
            _ = try await client.postFixes("van-1", day.fixes)
            let page = try await client.get("/v1/devices/van-1/trips", as: TripPage.self)
            #expect(page.trips.count == 2)
            for (index, trip) in page.trips.enumerated() {
                let (from, to) = (Self.mean(day.stops[index]), Self.mean(day.stops[index + 1]))
                let path = [from] + day.drives[index] + [to]
                let legs = zip(path, path.dropFirst()).map { Geodesic.wgs84.inverse(from: $0, to: $1).distance }
                #expect(close(trip.distance, legs.reduce(0, +), 0.01))
                #expect(trip.startDate == Trace.time(day.times[index].departure) && trip.endDate == Trace.time(day.times[index + 1].arrival))
                #expect(trip.duration == 150 && trip.fixCount == 4)
                #expect(close(trip.averageSpeed, legs.reduce(0, +) / 150, 1e-4))
                #expect(close(trip.maximumSpeed, legs.map { $0 / 30 }.max()!, 1e-4))
                #expect(Self.metres(trip.start, from) < 0.001 && Self.metres(trip.end, to) < 0.001)
            }
        }
    }

    @Test func pagesFollowNextFrom() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("van-1", Self.day.fixes)
            let all = try await client.get("/v1/devices/van-1/stops", as: StopPage.self)
            let first = try await client.get("/v1/devices/van-1/stops?limit=2", as: StopPage.self)
            let next = try #require(first.nextFrom)
            #expect(next == all.stops[2].arrivalDate)
            let rest = try await client.get("/v1/devices/van-1/stops?limit=2&from=\(next)", as: StopPage.self)
            #expect((first.stops + rest.stops).map(\.arrivalDate) == all.stops.map(\.arrivalDate) && rest.nextFrom == nil)
            let trips = try await client.get("/v1/devices/van-1/trips", as: TripPage.self)
            let firstTrip = try await client.get("/v1/devices/van-1/trips?limit=1", as: TripPage.self)
            let tripsNext = try #require(firstTrip.nextFrom)
            let restTrips = try await client.get("/v1/devices/van-1/trips?from=\(tripsNext)", as: TripPage.self)
            #expect((firstTrip.trips + restTrips.trips).map(\.distance) == trips.trips.map(\.distance))
        }
    }

    @Test func csvHasTheSameNumbersAsJSON() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("van-1", Self.day.fixes)
            let json = try await client.get("/v1/devices/van-1/trips", as: TripPage.self)
            for request in [("/v1/devices/van-1/trips?format=csv", nil), ("/v1/devices/van-1/trips", "text/csv")] {
                let response = try await client.execute(uri: request.0, method: .get, headers: request.1.map { [.accept: $0] } ?? [:])
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/csv") == true)
                let rows = String(buffer: response.body).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
                #expect(rows.first == ["startDate", "endDate", "startLatitude", "startLongitude", "endLatitude", "endLongitude",
                                       "distance", "duration", "averageSpeed", "maximumSpeed", "fixCount"])
                #expect(rows.count == 3)
                for (row, trip) in zip(rows.dropFirst(), json.trips) {
                    #expect(row[0] == trip.startDate && row[1] == trip.endDate && Double(row[6]) == trip.distance && Double(row[9]) == trip.maximumSpeed)
                    #expect(Double(row[2]) == trip.start.latitude && Int(row[10]) == trip.fixCount)
                }
            }
            let stops = try await client.execute(uri: "/v1/devices/van-1/stops?format=csv", method: .get)
            let lines = String(buffer: stops.body).split(separator: "\r\n")
            #expect(lines.first == "arrivalDate,departureDate,latitude,longitude,horizontalAccuracy,duration,fixCount")
            #expect(lines.count == 4 && lines[3].split(separator: ",", omittingEmptySubsequences: false)[1].isEmpty)
            // format wins over Accept.
            let asJSON = try await client.execute(uri: "/v1/devices/van-1/stops?format=json", method: .get, headers: [.accept: "text/csv"])
            #expect(asJSON.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func badParametersAreNamed() async throws {
        try await TestApp.withClient { client in
            for path in ["stops", "trips"] {
                for (query, parameter) in [("radius=0", "radius"), ("radius=10001", "radius"), ("minimumDuration=-1", "minimumDuration"),
                                           ("minimumDuration=604801", "minimumDuration"), ("limit=0", "limit"), ("radius=nan", "radius")] {
                    let problem = try await client.send(.get, "/v1/devices/van-1/\(path)?\(query)").problem(.unprocessableContent)
                    #expect(problem.errors?.map(\.parameter) == [parameter], "\(path) \(query)")
                }
                for (query, parameter) in [("from=yesterday", "from"), ("radius=far", "radius"), ("format=xml", "format")] {
                    let problem = try await client.send(.get, "/v1/devices/van-1/\(path)?\(query)").problem(.badRequest)
                    #expect(problem.errors?.first?.parameter == parameter, "\(path) \(query)")
                }
            }
            // A device without fixes has no stops.
            #expect(try await client.get("/v1/devices/nobody/stops", as: StopPage.self).stops.isEmpty)
        }
    }

    @Test func visitsSubscriptionAnnouncesArrivalAndDeparture() async throws {
        try await TestApp.withClient { client in
            let subscription = try await client.subscribe(#"{"type":"visits","deviceIds":["van-1"],"maxLocationAge":null}"#)
            #expect(subscription.type == "visits")
            let raw = try await client.send(.get, "/v1/subscriptions/\(subscription.id)")
            let body = String(buffer: raw.body)
            #expect(body.contains(#""radius":100"#) && body.contains(#""minimumDuration":300"#))
            let day = Self.day
            _ = try await client.postFixes("van-1", day.fixes)
            let page = try await client.get("/v1/subscriptions/\(subscription.id)/events?after=0", as: VisitEvents.self)
            #expect(page.events.map(\.type) == ["visitArrival", "visitDeparture", "visitArrival", "visitDeparture", "visitArrival"])
            let (arrival, departure) = (page.events[0], page.events[1])
            #expect(arrival.occurredAt == Trace.time(300) && arrival.visit?.arrivalDate == Trace.time(0) && arrival.visit?.departureDate == nil)
            let upToArrival = Array(day.stops[0].prefix(6))
            #expect(Self.metres(try #require(arrival.visit).centre, Self.mean(upToArrival)) < 0.001)
            #expect(departure.visit?.departureDate == Trace.time(480) && departure.occurredAt == Trace.time(510))
            #expect(departure.location.timestamp == departure.occurredAt)
            #expect(Self.metres(try #require(departure.visit).centre, Self.mean(day.stops[0])) < 0.001)
            // The device shows the visit under way (the last stop, announced, not left).
            struct Device: Decodable { struct State: Decodable { var subscriptionId: String; var visit: Visit? }; var subscriptions: [State] }
            let device = try await client.get("/v1/devices/van-1", as: Device.self)
            let state = try #require(device.subscriptions.first { $0.subscriptionId == subscription.id })
            #expect(state.visit?.arrivalDate == Trace.time(day.times[2].arrival) && state.visit?.departureDate == nil)
        }
    }

    @Test func visitsFieldsAreCheckedAndEditable() async throws {
        try await TestApp.withClient { client in
            for (body, pointer) in [(#"{"type":"visits","radius":0}"#, "/radius"), (#"{"type":"visits","minimumDuration":-5}"#, "/minimumDuration"),
                                    (#"{"type":"visits","radius":20000}"#, "/radius")] {
                let problem = try await client.send(.post, "/v1/subscriptions", json: body).problem(.unprocessableContent)
                #expect(problem.errors?.first?.pointer == pointer, "\(body)")
            }
            let visits = try await client.subscribe(#"{"type":"visits","radius":50,"minimumDuration":120}"#)
            let edited = try await client.send(.patch, "/v1/subscriptions/\(visits.id)", json: #"{"radius":75}"#)
            #expect(edited.status == .ok, "\(String(buffer: edited.body))")
            #expect(String(buffer: edited.body).contains(#""radius":75"#))
            let misfit = try await client.send(.patch, "/v1/subscriptions/\(visits.id)", json: #"{"hysteresis":5}"#)
            #expect(misfit.status == .conflict)
            let bad = try await client.send(.patch, "/v1/subscriptions/\(visits.id)", json: #"{"minimumDuration":-1}"#)
            #expect(try bad.problem(.unprocessableContent).errors?.first?.pointer == "/minimumDuration")
        }
    }
}
