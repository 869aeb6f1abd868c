import MeridianHTTP
import MapGeometry
import MeridianAPI

/// Coordinates, map points, regions and map rects (tag Convert, no viewport).
extension APIHandler {
    func convertCoordinatesToMapPoints(_ input: Operations.ConvertCoordinatesToMapPoints.Input) async throws -> Operations.ConvertCoordinatesToMapPoints.Output {
        switch input.body {
        case .json(let body):
            let points = try convertBatch(body.coordinates, at: "coordinates", Coordinate.init) {
                Components.Schemas.MapPoint(Mercator.mapPoint(for: $0))
            }
            return .ok(.init(body: .json(.init(mapPoints: points))))
        }
    }

    func convertMapPointsToCoordinates(_ input: Operations.ConvertMapPointsToCoordinates.Input) async throws -> Operations.ConvertMapPointsToCoordinates.Output {
        switch input.body {
        case .json(let body):
            let coordinates = try convertBatch(body.mapPoints, at: "mapPoints", MapPoint.init) {
                Components.Schemas.Coordinate(Mercator.coordinate(for: $0))
            }
            return .ok(.init(body: .json(.init(coordinates: coordinates))))
        }
    }

    func convertRegionsToMapRects(_ input: Operations.ConvertRegionsToMapRects.Input) async throws -> Operations.ConvertRegionsToMapRects.Output {
        switch input.body {
        case .json(let body):
            let rects = try convertBatch(body.regions, at: "regions", Region.init) {
                Components.Schemas.MapRect(MapRect($0))
            }
            return .ok(.init(body: .json(.init(mapRects: rects))))
        }
    }

    func convertMapRectsToRegions(_ input: Operations.ConvertMapRectsToRegions.Input) async throws -> Operations.ConvertMapRectsToRegions.Output {
        switch input.body {
        case .json(let body):
            let regions = try convertBatch(body.mapRects, at: "mapRects", MapRect.init) {
                Components.Schemas.Region(Region($0))
            }
            return .ok(.init(body: .json(.init(regions: regions))))
        }
    }

    func getMetersPerMapPoint(_ input: Operations.GetMetersPerMapPoint.Input) async throws -> Operations.GetMetersPerMapPoint.Output {
        let latitude = input.query.latitude
        do { try FieldError.check(latitude, field: "latitude", in: -90...90) } catch {
            throw ProblemError.invalid([.init(parameter: "latitude", detail: error.message)])
        }
        let meters = Mercator.metersPerMapPoint(atLatitude: latitude)
        return .ok(.init(body: .json(.init(latitude: latitude, metersPerMapPoint: meters, mapPointsPerMeter: 1 / meters))))
    }

    func makeRegionWithDistance(_ input: Operations.MakeRegionWithDistance.Input) async throws -> Operations.MakeRegionWithDistance.Output {
        switch input.body {
        case .json(let body):
            var errors = FieldErrors()
            let center = errors.value(at: ["center"]) { () throws(FieldError) in try Coordinate(body.center) }
            for (field, meters) in [("latitudinalMeters", body.latitudinalMeters), ("longitudinalMeters", body.longitudinalMeters)] {
                _ = errors.value { () throws(FieldError) in try FieldError.check(meters, field: field, atLeast: 0) }
            }
            let checked = try errors.check(center)
            let region = Region(center: checked, latitudinalMeters: body.latitudinalMeters, longitudinalMeters: body.longitudinalMeters)
            return .ok(.init(body: .json(.init(region: .init(region)))))
        }
    }

    func fitRegion(_ input: Operations.FitRegion.Input) async throws -> Operations.FitRegion.Output {
        switch input.body {
        case .json(let body):
            var errors = FieldErrors()
            let region = errors.value(at: ["region"]) { () throws(FieldError) in try Region(body.region) }
            let size = errors.value(at: ["size"]) { () throws(FieldError) in
                try ScreenSize(validatingViewWidth: body.size.width, height: body.size.height)
            }
            let (checkedRegion, checkedSize) = try errors.check(region, size)
            return .ok(.init(body: .json(.init(region: .init(checkedRegion.fitting(checkedSize))))))
        }
    }
}
