import MeridianHTTP
import MapGeometry
import MeridianAPI

/// Screen geometry of a viewport (tag Convert, with a viewport).
extension APIHandler {
    func convertCoordinatesToScreenPoints(_ input: Operations.ConvertCoordinatesToScreenPoints.Input) async throws -> Operations.ConvertCoordinatesToScreenPoints.Output {
        switch input.body {
        case .json(let body):
            let points = try convertBatch(in: body.viewport, body.coordinates, at: "coordinates", Coordinate.init) {
                Components.Schemas.ScreenPoint($0.screenPoint(for: $1))
            }
            return .ok(.init(body: .json(.init(points: points))))
        }
    }

    func convertScreenPointsToCoordinates(_ input: Operations.ConvertScreenPointsToCoordinates.Input) async throws -> Operations.ConvertScreenPointsToCoordinates.Output {
        switch input.body {
        case .json(let body):
            let coordinates = try convertBatch(in: body.viewport, body.points, at: "points", ScreenPoint.init) {
                Components.Schemas.Coordinate($0.coordinate(for: $1))
            }
            return .ok(.init(body: .json(.init(coordinates: coordinates))))
        }
    }

    func convertMapPointsToScreenPoints(_ input: Operations.ConvertMapPointsToScreenPoints.Input) async throws -> Operations.ConvertMapPointsToScreenPoints.Output {
        switch input.body {
        case .json(let body):
            let points = try convertBatch(in: body.viewport, body.mapPoints, at: "mapPoints", MapPoint.init) {
                Components.Schemas.ScreenPoint($0.screenPoint(for: $1))
            }
            return .ok(.init(body: .json(.init(points: points))))
        }
    }

    func convertScreenPointsToMapPoints(_ input: Operations.ConvertScreenPointsToMapPoints.Input) async throws -> Operations.ConvertScreenPointsToMapPoints.Output {
        switch input.body {
        case .json(let body):
            let points = try convertBatch(in: body.viewport, body.points, at: "points", ScreenPoint.init) {
                Components.Schemas.MapPoint($0.mapPoint(for: $1))
            }
            return .ok(.init(body: .json(.init(mapPoints: points))))
        }
    }

    func convertRegionsToScreenRects(_ input: Operations.ConvertRegionsToScreenRects.Input) async throws -> Operations.ConvertRegionsToScreenRects.Output {
        switch input.body {
        case .json(let body):
            let rects = try convertBatch(in: body.viewport, body.regions, at: "regions", Region.init) {
                Components.Schemas.ScreenRect($0.screenRect(for: $1))
            }
            return .ok(.init(body: .json(.init(rects: rects))))
        }
    }

    func convertScreenRectsToRegions(_ input: Operations.ConvertScreenRectsToRegions.Input) async throws -> Operations.ConvertScreenRectsToRegions.Output {
        switch input.body {
        case .json(let body):
            let regions = try convertBatch(in: body.viewport, body.rects, at: "rects", ScreenRect.init) {
                Components.Schemas.Region($0.region(for: $1))
            }
            return .ok(.init(body: .json(.init(regions: regions))))
        }
    }

    func convertMapRectsToScreenRects(_ input: Operations.ConvertMapRectsToScreenRects.Input) async throws -> Operations.ConvertMapRectsToScreenRects.Output {
        switch input.body {
        case .json(let body):
            let rects = try convertBatch(in: body.viewport, body.mapRects, at: "mapRects", MapRect.init) {
                Components.Schemas.ScreenRect($0.screenRect(for: $1))
            }
            return .ok(.init(body: .json(.init(rects: rects))))
        }
    }

    func convertScreenRectsToMapRects(_ input: Operations.ConvertScreenRectsToMapRects.Input) async throws -> Operations.ConvertScreenRectsToMapRects.Output {
        switch input.body {
        case .json(let body):
            let rects = try convertBatch(in: body.viewport, body.rects, at: "rects", ScreenRect.init) {
                Components.Schemas.MapRect($0.mapRect(for: $1))
            }
            return .ok(.init(body: .json(.init(mapRects: rects))))
        }
    }

    func describeViewport(_ input: Operations.DescribeViewport.Input) async throws -> Operations.DescribeViewport.Output {
        switch input.body {
        case .json(let body):
            var errors = FieldErrors()
            let viewport = errors.value(at: ["viewport"]) { () throws(FieldError) in try Viewport(body.viewport) }
            return .ok(.init(body: .json(.init(try errors.check(viewport)))))
        }
    }
}

extension Components.Schemas.ViewportDescription {
    init(_ viewport: Viewport) {
        let rect = viewport.visibleMapRect
        self.init(
            size: .init(viewport.size),
            heading: viewport.heading,
            center: .init(viewport.centerCoordinate),
            visibleMapRect: .init(rect),
            region: .init(Region(rect)),
            zoomScale: viewport.zoomScale,
            zoomLevel: viewport.zoomLevel,
            metersPerPoint: viewport.metersPerPoint,
            spans180thMeridian: rect.spans180thMeridian,
            remainder: rect.remainder.map(Components.Schemas.MapRect.init)
        )
    }
}
