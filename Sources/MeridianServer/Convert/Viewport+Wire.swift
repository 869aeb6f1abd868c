import MeridianHTTP
import MapGeometry
import MeridianAPI

extension MapGeometry.Viewport {
    /// A viewport from the wire: a view size greater than zero, a finite heading, and exactly
    /// one of `visibleMapRect`, `region`, or `center` with `zoomLevel`.
    init(_ wire: Components.Schemas.Viewport) throws(FieldError) {
        // The contract's closed forms say "exactly one area"; ViewportInput reads any of their members, checked here by name.
        let size: MapGeometry.ScreenSize
        do { size = try .init(validatingViewWidth: wire.size.width, height: wire.size.height) } catch {
            throw error.nested(under: "size")
        }
        var areas: [MapGeometry.Viewport.Area] = []
        if let rect = wire.visibleMapRect {
            do { areas.append(.visibleMapRect(try .init(rect))) } catch { throw error.nested(under: "visibleMapRect") }
        }
        if let region = wire.region {
            do { areas.append(.region(try .init(region))) } catch { throw error.nested(under: "region") }
        }
        switch (wire.center, wire.zoomLevel) {
        case (let center?, let zoomLevel?):
            do { areas.append(.center(try .init(center), zoomLevel: zoomLevel)) } catch { throw error.nested(under: "center") }
        case (nil, nil):
            break
        case (nil, _?):
            throw FieldError(path: ["center"], message: "is required with zoomLevel")
        case (_?, nil):
            throw FieldError(path: ["zoomLevel"], message: "is required with center")
        }
        guard areas.count == 1, let area = areas.first else {
            throw FieldError(
                path: [],
                message: "must have exactly one of visibleMapRect, region, or center with zoomLevel; got \(areas.count)"
            )
        }
        try self.init(size: size, heading: wire.heading ?? 0, area: area)
    }
}
