import Foundation
import Geodesy
import HTTPTypes
import MeridianHTTP

/// A coordinate reference system `/ogc` serves and reads, by its OGC URI (OGC API – Features
/// Part 2, OGC 18-058r1): CRS84 (longitude, latitude; the default) and EPSG:4326 (latitude,
/// longitude, the order EPSG gives its axes) on WGS84, and EPSG:3857 (Web Mercator easting,
/// northing, metres). Positions are transformed by PROJ (``CRSTransformerPool``).
struct OGCCRS: Hashable, Sendable {
    /// The URI clients name it by (`crs`, `bbox-crs`, `filter-crs`, `Content-Crs`).
    let uri: String
    /// What PROJ calls it.
    let proj: String
    /// Whether its first axis is latitude (EPSG:4326). PROJ's transformations are normalised to
    /// longitude first, so such positions are swapped on the way in and out.
    let latitudeFirst: Bool

    static let crs84 = OGCCRS(uri: "http://www.opengis.net/def/crs/OGC/1.3/CRS84", proj: "OGC:CRS84", latitudeFirst: false)
    static let epsg4326 = OGCCRS(uri: "http://www.opengis.net/def/crs/EPSG/0/4326", proj: "EPSG:4326", latitudeFirst: true)
    static let epsg3857 = OGCCRS(uri: "http://www.opengis.net/def/crs/EPSG/0/3857", proj: "EPSG:3857", latitudeFirst: false)
    /// Every CRS a collection lists, the storage CRS (CRS84) first.
    static let supported = [crs84, epsg4326, epsg3857]

    /// The Part 2 conformance class (`/ogc/conformance`).
    static let conformanceClass = "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs"

    /// Web Mercator's latitude limit: positions nearer a pole are drawn at it (where a map ends).
    static let mercatorLatitudeLimit = 85.0511287798066

    /// The CRS `parameter` names, CRS84 when absent.
    /// - Throws: 400 naming `parameter` for a CRS not in ``supported``.
    static func named(_ value: String?, parameter: String) throws(ProblemError) -> OGCCRS {
        guard let value else { return crs84 }
        // A URI may come in angle brackets, as Content-Crs writes it.
        let uri = value.hasPrefix("<") && value.hasSuffix(">") ? String(value.dropFirst().dropLast()) : value
        guard let crs = supported.first(where: { $0.uri == uri }) else {
            let detail = "must be one of \(supported.map(\.uri).joined(separator: ", ")), got \"\(value)\""
            throw ProblemError.badParameter(parameter, detail)
        }
        return crs
    }

    /// The `Content-Crs` header's value: the URI in angle brackets.
    var contentCrsHeader: String { "<\(uri)>" }

    /// `positions` (`[longitude, latitude]` or with a height) from CRS84 into this CRS, in its axis order.
    /// - Throws: ``GeodesyError`` when PROJ fails (it does not for these three).
    func fromCRS84(_ positions: [[Double]], with pool: CRSTransformerPool) throws(GeodesyError) -> [[Double]] {
        if self == .crs84 { return positions }
        let clamped = self == .epsg3857
            ? positions.map { p in var p = p; p[1] = min(max(p[1], -Self.mercatorLatitudeLimit), Self.mercatorLatitudeLimit); return p }
            : positions
        let out = try pool.transform(clamped, from: Self.crs84.proj, to: proj)
        return zip(out, clamped).map { transformed, original in swapIfNeeded(transformed ?? original) }
    }

    /// `positions` in this CRS's axis order into CRS84 `[longitude, latitude]`; nil for a
    /// position outside the CRS's domain.
    func toCRS84(_ positions: [[Double]], with pool: CRSTransformerPool) throws(GeodesyError) -> [[Double]?] {
        if self == .crs84 { return positions }
        return try pool.transform(positions.map(swapIfNeeded), from: proj, to: Self.crs84.proj)
    }

    private func swapIfNeeded(_ p: [Double]) -> [Double] {
        guard latitudeFirst, p.count >= 2 else { return p }
        var p = p
        p.swapAt(0, 1)
        return p
    }
}
