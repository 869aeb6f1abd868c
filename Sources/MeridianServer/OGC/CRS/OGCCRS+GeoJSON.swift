import Geodesy
import HTTPTypes
import MeridianHTTP
import WireJSON

// What `crs` and `bbox-crs` do to GeoJSON: a geometry's positions out of CRS84, a box into it.

extension OGCCRS {
    /// `geometry` (a GeoJSON geometry in CRS84; a GeometryCollection's members too) with every
    /// position in this CRS, in its axis order; anything else in it unchanged.
    func geometry(_ geometry: JSONValue, with pool: CRSTransformerPool) throws(GeodesyError) -> JSONValue {
        if self == .crs84 { return geometry }
        var positions: [[Double]] = []
        Self.visitPositions(geometry) { positions.append($0); return $0 }
        var transformed = try fromCRS84(positions, with: pool)[...]
        return Self.visitPositions(geometry) { _ in transformed.popFirst() ?? [] }
    }

    /// A `bbox` (4 numbers, or 6 with heights) in this CRS's axis order as CRS84
    /// `[west, south, east, north]`: its lower and upper corners transformed. A box whose west
    /// lies east of its east still crosses the antimeridian.
    /// - Throws: 400 naming `parameter` (`bbox`) when a corner is outside the CRS's domain.
    func boxInCRS84(_ values: [Double], parameter: String, with pool: CRSTransformerPool) throws(ProblemError) -> [Double] {
        if self == .crs84 { return values }
        guard values.count == 4 || values.count == 6 else {
            let detail = "must have 4 or 6 numbers, got \(values.count)"
            throw ProblemError.badParameter(parameter, detail)
        }
        let half = values.count / 2
        let corners = [[values[0], values[1]], [values[half], values[half + 1]]]
        let transformed: [[Double]?]
        do { transformed = try toCRS84(corners, with: pool) } catch {
            throw ProblemError(.badRequest, detail: "\(parameter) could not be transformed from \(uri): \(error)", errors: [.init(parameter: parameter, detail: "\(error)")])
        }
        guard let lower = transformed[0], let upper = transformed[1] else {
            let detail = "has a corner outside \(uri)'s domain"
            throw ProblemError.badParameter(parameter, detail)
        }
        // A corner on the world's edge may come back a rounding past it.
        func clamp(_ value: Double, _ limit: Double) -> Double { min(max(value, -limit), limit) }
        return [clamp(lower[0], 180), clamp(lower[1], 90), clamp(upper[0], 180), clamp(upper[1], 90)]
    }

    /// Rebuilds `value`, replacing each position (an array of 2 or 3 numbers) of each
    /// `coordinates` member by `replace(position)`, in document order.
    @discardableResult
    static func visitPositions(_ value: JSONValue, _ replace: ([Double]) -> [Double]) -> JSONValue {
        func positions(_ value: JSONValue) -> JSONValue {
            guard case .array(let items) = value else { return value }
            let numbers = items.compactMap { item -> Double? in if case .number(let n) = item { return n.double } else { return nil } }
            if !items.isEmpty, numbers.count == items.count { return .array(replace(numbers).map { .number($0) }) }
            return .array(items.map(positions))
        }
        switch value {
        case .object(var members):
            if let coordinates = members["coordinates"] { members["coordinates"] = positions(coordinates) }
            if case .array(let geometries)? = members["geometries"] { members["geometries"] = .array(geometries.map { visitPositions($0, replace) }) }
            return .object(members)
        default:
            return value
        }
    }
}
