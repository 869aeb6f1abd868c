import MeridianHTTP
import Geodesy
import MapGeometry
import MeridianAPI

/// Ellipsoidal geodesics and CRS transforms (tag Geodesy), through PROJ.
extension APIHandler {
    /// Longest CRS identifier accepted (a WKT definition fits easily).
    static var maxCRSLength: Int { 16_384 }

    func solveGeodesicInverse(_ input: Operations.SolveGeodesicInverse.Input) async throws -> Operations.SolveGeodesicInverse.Output {
        switch input.body {
        case .json(let body):
            let results = try convertBatch(body.pairs, at: "pairs", GeodesicPair.init) { pair in
                let result = Geodesic.wgs84.inverse(from: pair.from, to: pair.to)
                return Components.Schemas.GeodesicInverseResult(
                    distance: result.distance, initialAzimuth: result.initialAzimuth, finalAzimuth: result.finalAzimuth
                )
            }
            return .ok(.init(body: .json(.init(results: results))))
        }
    }

    func solveGeodesicDirect(_ input: Operations.SolveGeodesicDirect.Input) async throws -> Operations.SolveGeodesicDirect.Output {
        switch input.body {
        case .json(let body):
            let results = try convertBatch(body.items, at: "items", GeodesicDirectItem.init) { item in
                let result = Geodesic.wgs84.direct(from: item.from, azimuth: item.azimuth, distance: item.distance)
                return Components.Schemas.GeodesicDirectResult(coordinate: .init(result.coordinate), finalAzimuth: result.finalAzimuth)
            }
            return .ok(.init(body: .json(.init(results: results))))
        }
    }

    func transformPositions(_ input: Operations.TransformPositions.Input) async throws -> Operations.TransformPositions.Output {
        switch input.body {
        case .json(let body):
            var errors = FieldErrors()
            for (field, identifier) in [("source", body.source), ("target", body.target)] {
                // Code points, as the contract's minLength and maxLength count them.
                if identifier.isEmpty || identifier.unicodeScalars.count > Self.maxCRSLength {
                    errors.record(at: [field], "must name a CRS in 1 to \(Self.maxCRSLength) characters")
                }
            }
            let positions = errors.batch(body.positions, at: ["positions"], maxItems: limits.maxBatchSize, Self.checkPosition)
            try errors.check()
            let transformed = try transformers.transform(positions, from: body.source, to: body.target)
            return .ok(.init(body: .json(.init(positions: transformed))))
        }
    }

    /// A position is 2 or 3 finite numbers.
    private static func checkPosition(_ position: [Double]) throws(FieldError) -> [Double] {
        guard (2...3).contains(position.count) else {
            throw FieldError(path: [], message: "must hold 2 or 3 numbers ([x, y] or [x, y, z]), got \(position.count)")
        }
        for (index, value) in position.enumerated() {
            try FieldError.checkFinite(value, field: String(index))
        }
        return position
    }
}

/// A validated pair of the inverse problem.
private struct GeodesicPair {
    let from: Coordinate, to: Coordinate

    init(_ wire: Components.Schemas.GeodesicPair) throws(FieldError) {
        do { from = try Coordinate(wire.from) } catch { throw error.nested(under: "from") }
        do { to = try Coordinate(wire.to) } catch { throw error.nested(under: "to") }
    }
}

/// A validated item of the direct problem.
private struct GeodesicDirectItem {
    let from: Coordinate, azimuth: Double, distance: Double

    init(_ wire: Components.Schemas.GeodesicDirectItem) throws(FieldError) {
        do { from = try Coordinate(wire.from) } catch { throw error.nested(under: "from") }
        try FieldError.checkFinite(wire.azimuth, field: "azimuth")
        // Longer than half the meridian brings nothing new; cap absurd values.
        try FieldError.check(wire.distance, field: "distance", in: -1e9...1e9)
        azimuth = wire.azimuth
        distance = wire.distance
    }
}
