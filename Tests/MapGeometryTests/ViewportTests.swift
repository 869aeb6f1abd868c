import TestSupport
import Foundation
import MapGeometry
import Testing

@Suite struct ViewportTests {
    let world = Mercator.worldSize
    let square = ScreenSize(width: 256, height: 256)

    @Test func zoomZeroShowsTheWorldInOneTile() throws {
        let view = try Viewport(size: square, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 0))
        #expect(view.frame == MapRect(minX: 0, minY: 0, maxX: world, maxY: world))
        #expect(view.zoomScale == 256 / world)
        #expect(view.zoomLevel == 0)
        #expect(view.screenPoint(for: Coordinate(latitude: 0, longitude: 0)) == ScreenPoint(x: 128, y: 128))
        let corner = view.screenPoint(for: Coordinate(latitude: Mercator.maxLatitude, longitude: -180))
        #expect(abs(corner.x) < 1e-9 && abs(corner.y) < 1e-9)
    }

    @Test func zoomLevelIsTwentyPlusLog2OfTheScale() throws {
        // At zoom 20 one map point is one screen point (256-point tiles, 2^28 = 256 · 2^20).
        let view = try Viewport(size: square, area: .center(Coordinate(latitude: 35, longitude: 139), zoomLevel: 20))
        #expect(view.zoomScale == 1)
        #expect(view.frame.size == MapSize(width: 256, height: 256))
        let rectView = try Viewport(size: ScreenSize(width: 512, height: 256), area: .visibleMapRect(MapRect(minX: 0, minY: 0, maxX: 1024, maxY: 9)))
        #expect(rectView.zoomLevel == 19)
        #expect(rectView.frame.size.height == 512)
    }

    @Test func headingTurnsTheMapAroundTheViewCenter() throws {
        let center = Coordinate(latitude: 0, longitude: 0)
        let east = Coordinate(latitude: 0, longitude: 10)
        let north = try Viewport(size: square, heading: 0, area: .center(center, zoomLevel: 0))
        let facingEast = try Viewport(size: square, heading: 90, area: .center(center, zoomLevel: 0))
        let offset = 10.0 / 360 * 256
        #expect(north.screenPoint(for: east) == ScreenPoint(x: 128 + offset, y: 128))
        // Facing east, east points up.
        let turned = facingEast.screenPoint(for: east)
        #expect(abs(turned.x - 128) < 1e-9 && abs(turned.y - (128 - offset)) < 1e-9)
        let facingSouthWest = try Viewport(size: square, heading: 225, area: .center(center, zoomLevel: 0))
        let p = facingSouthWest.screenPoint(for: east)
        // Facing south-west, east lies 135° counter-clockwise of up: down and to the left.
        #expect(abs(p.x - (128 - offset * 0.5.squareRoot())) < 1e-9)
        #expect(abs(p.y - (128 + offset * 0.5.squareRoot())) < 1e-9)
    }

    @Test func pointsAcrossTheAntimeridianLandBesideTheView() throws {
        let view = try Viewport(size: square, area: .center(Coordinate(latitude: 0, longitude: 180), zoomLevel: 4))
        let west = view.screenPoint(for: Coordinate(latitude: 0, longitude: 179))
        let east = view.screenPoint(for: Coordinate(latitude: 0, longitude: -179))
        let step = 1.0 / 360 * 256 * 16
        #expect(abs(west.x - (128 - step)) < 1e-6)
        #expect(abs(east.x - (128 + step)) < 1e-6)
        #expect(view.visibleMapRect.spans180thMeridian)
        #expect(abs(view.coordinate(for: east).longitude - -179) < 1e-9)
    }

    @Test func aRegionViewportIsFittedFirst() throws {
        let region = Region(center: Coordinate(latitude: 48.85, longitude: 2.35), span: Span(latitudeDelta: 0.1, longitudeDelta: 0.1))
        let view = try Viewport(size: ScreenSize(width: 400, height: 200), area: .region(region))
        let fitted = MapRect(region).fitting(aspectOf: ScreenSize(width: 400, height: 200))
        #expect(abs(view.frame.midX - fitted.midX) < 1e-6 && abs(view.frame.midY - fitted.midY) < 1e-6)
        #expect(abs(view.frame.size.width / fitted.size.width - 1) < 1e-12 && abs(view.frame.size.height / fitted.size.height - 1) < 1e-12)
        #expect(abs(view.frame.size.width / view.frame.size.height - 2) < 1e-9)
    }

    @Test func aTurnedViewSeesTheBoundingRectOfItsCorners() throws {
        let view = try Viewport(size: ScreenSize(width: 200, height: 100), heading: 90, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 20))
        // Quarter turn: the visible map rect is 100 wide and 200 tall.
        #expect(abs(view.visibleMapRect.size.width - 100) < 1e-6)
        #expect(abs(view.visibleMapRect.size.height - 200) < 1e-6)
    }

    @Test func badViewportsNameTheField() throws {
        let size = ScreenSize(width: 100, height: 100)
        #expect(throws: FieldError.self) { try Viewport(size: size, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 31)) }
        // A rect too small for the camera's last zoom (a point, even) is shown at zoom 30, as MKMapView does.
        #expect(try Viewport(size: size, area: .visibleMapRect(MapRect(minX: 0, minY: 0, maxX: 0, maxY: 0))).zoomLevel == 30)
        #expect(try Viewport(size: size, area: .visibleMapRect(MapRect(minX: 0, minY: 0, maxX: 1e-320, maxY: 0))).zoomLevel == 30)
        #expect(try Viewport(size: size, area: .visibleMapRect(MapRect(minX: 0, minY: 0, maxX: 2e9, maxY: 0))).zoomLevel == 0)
        #expect(try Viewport(size: size, area: .region(Region(center: Coordinate(latitude: 0, longitude: 0), span: Span(latitudeDelta: 0, longitudeDelta: 0)))).zoomLevel == 30)
        #expect(throws: FieldError.self) { try Viewport(size: size, heading: .infinity, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 3)) }
    }

    // MARK: - MapKit's setVisibleMapRect: (mapRectThatFits:)

    @Test func aVisibleMapRectIsShownWholeAndCentredLikeSetVisibleMapRect() throws {
        // The world in an 800×400 view: the height decides, zs = 400 / 2^28, zoom log2(400 / 256).
        let wide = try Viewport(size: ScreenSize(width: 800, height: 400), area: .visibleMapRect(MapRect(minX: 0, minY: 0, maxX: world, maxY: world)))
        #expect(wide.zoomScale == 400 / world)
        #expect(abs(wide.zoomLevel - 0.643_856_189_774_724_7) < 1e-12)
        #expect(wide.frame == MapRect(minX: -world / 2, minY: 0, maxX: world * 1.5, maxY: world))
        // The world in a 400×800 view: the width decides and the height grows around the center,
        // so three quarters of the way up the view is latitude +66.51 (atan(sinh(π/2))).
        let tall = try Viewport(size: ScreenSize(width: 400, height: 800), area: .visibleMapRect(MapRect(minX: 0, minY: 0, maxX: world, maxY: world)))
        #expect(tall.frame == MapRect(minX: 0, minY: -world / 2, maxX: world, maxY: world * 1.5))
        let up = tall.coordinate(for: ScreenPoint(x: 200, y: 300))
        #expect(abs(up.latitude - 66.513_260_443_111_85) < 1e-9)
    }

    @Test func everyIntegerZoomStaysAnIntegerForManyViewSizes() throws {
        var generator = SeededGenerator(seed: 0x5eed)
        for zoom in 0...22 {
            for _ in 0..<200 {
                let size = ScreenSize(width: Double(Int.random(in: 1...4000, using: &generator)), height: Double(Int.random(in: 1...4000, using: &generator)))
                let center = Coordinate(latitude: Double.random(in: -85...85, using: &generator), longitude: Double.random(in: -180...180, using: &generator))
                let view = try Viewport(size: size, heading: Double.random(in: 0..<360, using: &generator), area: .center(center, zoomLevel: Double(zoom)))
                #expect(view.zoomLevel == Double(zoom), "\(size) at \(center)")
                #expect(view.zoomScale == exp2(Double(zoom) - 20))
                // The frame it shows, given back as a visible map rect, is the same zoom.
                let again = try Viewport(size: size, area: .visibleMapRect(view.frame))
                #expect(again.zoomLevel == Double(zoom), "\(size) at \(center) via its frame")
            }
        }
        // The view the issue found drifting: 877×397 at (69.2998, −90.5665), zoom 8.
        let drifting = try Viewport(size: ScreenSize(width: 877, height: 397), area: .center(Coordinate(latitude: 69.2998, longitude: -90.5665), zoomLevel: 8))
        #expect(drifting.zoomLevel == 8)
        // Fractional zooms are kept as they are.
        let fractional = try Viewport(size: square, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 8.5))
        #expect(fractional.zoomLevel == 8.5)
    }
}
