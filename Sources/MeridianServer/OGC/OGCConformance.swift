/// The conformance classes `/ogc/conformance` declares: only those the server passes, listed in
/// this one place (the CQL2 engine, HTML pages and CRS support add theirs here as they land).
///
/// Not declared: Part 1's OpenAPI 3.0 class (`…/conf/oas30`), which requires an OpenAPI 3.0
/// document; the contract served at `service-desc` is OpenAPI 3.1.
enum OGCConformance {
    static let features = "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/"
    static let filtering = "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/"
    static let writes = "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/"
    static let cql2 = "http://www.opengis.net/spec/cql2/1.0/conf/"

    /// Every class declared, in the order listed.
    static let classes: [String] = [
        // Part 1
        features + "core",
        features + "geojson",
        features + "html",
        // Part 2
        OGCCRS.conformanceClass,
        // Part 3
        filtering + "queryables",
        filtering + "filter",
        filtering + "features-filter",
        // Part 4, on `annotations`
        writes + "create-replace-delete",
        writes + "update",
        writes + "features",
        // CQL2 (OGC 21-065r2): every class but `functions` (no functions of our own); the OGC's
        // conformance cases of each pass (Tests/Fixtures/cql2, CQL2ConformanceContractTests).
        cql2 + "cql2-text",
        cql2 + "cql2-json",
        cql2 + "basic-cql2",
        cql2 + "advanced-comparison-operators",
        cql2 + "case-insensitive-comparison",
        cql2 + "accent-insensitive-comparison",
        cql2 + "basic-spatial-functions",
        cql2 + "basic-spatial-functions-plus",
        cql2 + "spatial-functions",
        cql2 + "temporal-functions",
        cql2 + "array-functions",
        cql2 + "property-property",
        cql2 + "arithmetic",
    ]
}
