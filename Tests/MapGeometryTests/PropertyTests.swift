import Foundation
import MapGeometry
import PropertyBased
import Testing

/// Round trips over random inputs; each fails with the input and a seed to replay it.
@Suite struct PropertyTests {
    let world = Mercator.worldSize

    @Test func coordinateToMapPointAndBackWithinANanodegree() async {
        await propertyCheck(count: 2000, input: Gen.double(in: -85...85), Gen.double(in: -180...180)) { latitude, longitude in
            let back = Mercator.coordinate(for: Mercator.mapPoint(for: Coordinate(latitude: latitude, longitude: longitude)))
            #expect(abs(back.latitude - latitude) < 1e-9)
            #expect(abs(back.longitude - longitude) < 1e-9 || abs(abs(back.longitude - longitude) - 360) < 1e-9)
        }
    }

    @Test func screenToMapAndBackWithAnyHeading() async throws {
        await propertyCheck(
            count: 1000,
            input: Gen.double(in: -80...80), Gen.double(in: -180...180), Gen.double(in: 4...22), Gen.double(in: 0..<360),
            Gen.double(in: 0...1)
        ) { latitude, longitude, zoom, heading, fraction in
            let view = try Viewport(
                size: ScreenSize(width: 1024, height: 768), heading: heading,
                area: .center(Coordinate(latitude: latitude, longitude: longitude), zoomLevel: zoom)
            )
            let point = ScreenPoint(x: 1024 * fraction, y: 768 * (1 - fraction))
            let back = view.screenPoint(for: view.mapPoint(for: point))
            #expect(abs(back.x - point.x) < 1e-6 && abs(back.y - point.y) < 1e-6)
            // Through degrees, the round trip is as exact as the Mercator inverse at this scale, for
            // points on the map: beyond its north or south edge a coordinate is clamped (±85.05°),
            // as MapKit's is, so it cannot come back to the same screen point.
            guard (0...world).contains(view.mapPoint(for: point).y) else { return }
            let viaCoordinate = view.screenPoint(for: view.coordinate(for: point))
            #expect(abs(viaCoordinate.x - point.x) < 1e-4 && abs(viaCoordinate.y - point.y) < 1e-4)
        }
    }

    @Test func mapToScreenAndBackWithAnyHeading() async throws {
        await propertyCheck(
            count: 1000,
            input: Gen.double(in: 0..<268_435_456), Gen.double(in: 1e6...2.6e8), Gen.double(in: 0...20), Gen.double(in: -720...720)
        ) { x, y, zoom, heading in
            let view = try Viewport(
                size: ScreenSize(width: 320, height: 640), heading: heading,
                area: .center(Mercator.coordinate(for: MapPoint(x: x, y: y)), zoomLevel: zoom)
            )
            let target = MapPoint(x: Mercator.wrapX(x + 1000), y: y - 700)
            let back = view.mapPoint(for: view.screenPoint(for: target))
            let tolerance = 1e-6 * max(1, 1 / view.zoomScale)
            #expect(abs(back.x - target.x) < tolerance && abs(back.y - target.y) < tolerance)
        }
    }

    @Test func regionToRectAndBackKeepsSpanAndLongitude() async {
        await propertyCheck(
            count: 1000,
            input: Gen.double(in: -60...60), Gen.double(in: -180...180), Gen.double(in: 0.0001...40), Gen.double(in: 0.0001...360)
        ) { latitude, longitude, latitudeDelta, longitudeDelta in
            let region = Region(center: Coordinate(latitude: latitude, longitude: longitude), span: Span(latitudeDelta: latitudeDelta, longitudeDelta: longitudeDelta))
            let back = Region(MapRect(region))
            #expect(abs(back.span.latitudeDelta - latitudeDelta) < 1e-9)
            #expect(abs(back.span.longitudeDelta - longitudeDelta) < 1e-9)
            let dLon = abs(back.center.longitude - longitude)
            #expect(dLon < 1e-9 || abs(dLon - 360) < 1e-9)
            // MapKit centers a rect's region on the Mercator midpoint: inside the region, poleward of its middle.
            #expect(back.center.latitude >= region.south && back.center.latitude <= region.north)
            #expect(abs(back.center.latitude) >= abs(latitude) - 1e-9 || (region.south < 0 && region.north > 0))
        }
    }

    @Test func rectToRegionAndBackKeepsTheEastWestExtent() async {
        await propertyCheck(
            count: 1000,
            input: Gen.double(in: -1e8...3e8), Gen.double(in: 0...2.6e8), Gen.double(in: 1...2e8), Gen.double(in: 1...5e6)
        ) { x, y, width, height in
            let rect = MapRect(minX: x, minY: y, maxX: x + width, maxY: y + height)
            let region = Region(rect)
            #expect(abs(region.span.latitudeDelta - (Mercator.latitude(forY: rect.minY) - Mercator.latitude(forY: rect.maxY))) < 1e-12)
            let back = MapRect(region)
            #expect(abs(back.minX - rect.wrapped.minX) < 1e-5)
            #expect(abs(back.size.width - width) < 1e-5)
            #expect(abs(back.midY - rect.midY) <= height / 2 + 1e-6)
        }
    }

    @Test func rectsSpanTheAntimeridianExactlyWhenTheirRegionsCrossIt() async {
        await propertyCheck(count: 1000, input: Gen.double(in: -180...180), Gen.double(in: 0.001...359)) { longitude, longitudeDelta in
            let region = Region(center: Coordinate(latitude: 0, longitude: longitude), span: Span(latitudeDelta: 1, longitudeDelta: longitudeDelta))
            let rect = MapRect(region)
            let crosses = region.west < -180 || region.east > 180
            #expect(rect.minX >= 0 && rect.minX < Mercator.worldSize)
            // Allow for rounding at an edge that sits exactly on the meridian.
            if abs(region.west + 180) > 1e-9 && abs(region.east - 180) > 1e-9 {
                #expect(rect.spans180thMeridian == crosses)
                #expect((rect.remainder != nil) == crosses)
            }
            if let remainder = rect.remainder {
                #expect(abs(remainder.size.width + (Mercator.worldSize - rect.minX) - rect.size.width) < 1e-4)
            }
        }
    }
}
