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
        #expect(view.frame == MapRect(region).fitting(aspectOf: ScreenSize(width: 400, height: 200)))
        #expect(abs(view.frame.size.width / view.frame.size.height - 2) < 1e-9)
    }

    @Test func aTurnedViewSeesTheBoundingRectOfItsCorners() throws {
        let view = try Viewport(size: ScreenSize(width: 200, height: 100), heading: 90, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 20))
        // Quarter turn: the visible map rect is 100 wide and 200 tall.
        #expect(abs(view.visibleMapRect.size.width - 100) < 1e-6)
        #expect(abs(view.visibleMapRect.size.height - 200) < 1e-6)
    }

    @Test func badViewportsNameTheField() {
        let size = ScreenSize(width: 100, height: 100)
        #expect(throws: FieldError.self) { try Viewport(size: size, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 31)) }
        #expect(throws: FieldError.self) { try Viewport(size: size, area: .visibleMapRect(MapRect(minX: 0, minY: 0, maxX: 0, maxY: 10))) }
        #expect(throws: FieldError.self) {
            try Viewport(size: size, area: .region(Region(center: Coordinate(latitude: 0, longitude: 0), span: Span(latitudeDelta: 0, longitudeDelta: 0))))
        }
        #expect(throws: FieldError.self) { try Viewport(size: size, heading: .infinity, area: .center(Coordinate(latitude: 0, longitude: 0), zoomLevel: 3)) }
    }
}
