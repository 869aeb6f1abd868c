import Geodesy
import Testing

@Suite struct CRSTransformTests {
    let pool = CRSTransformerPool()

    @Test func tokyoInWebMercatorMatchesTheReference() throws {
        let result = try pool.transform([[139.767125, 35.681236]], from: "EPSG:4326", to: "EPSG:3857").compactMap { $0 }
        #expect(abs(result[0][0] - 15_558_805.184_639_815) < 1e-6)
        #expect(abs(result[0][1] - 4_256_848.120_219_802) < 1e-6)
    }

    @Test func axisOrderIsAlwaysEastingFirst() throws {
        // EPSG:6677 (JGD2011 / Japan Plane Rectangular CS IX) declares northing first; we answer easting first.
        // Reference: pyproj 3.8 with always_xy=True gives (-5992.919570392903, -35363.23774493004).
        let result = try pool.transform([[139.767125, 35.681236]], from: "EPSG:4326", to: "EPSG:6677").compactMap { $0 }
        #expect(abs(result[0][0] - -5_992.919_570_392_903) < 1e-3)
        #expect(abs(result[0][1] - -35_363.237_744_930_04) < 1e-3)
        let back = try pool.transform(result, from: "EPSG:6677", to: "EPSG:4326").compactMap { $0 }
        #expect(abs(back[0][0] - 139.767125) < 1e-9 && abs(back[0][1] - 35.681236) < 1e-9)
    }

    @Test func threeDimensionalPositionsKeepTheirHeight() throws {
        let result = try pool.transform([[2.35, 48.85, 35]], from: "EPSG:4326", to: "EPSG:3857")
        #expect(result[0]?.count == 3)
    }

    @Test func unknownCodesNameTheField() {
        #expect(throws: GeodesyError.self) { try pool.transform([[0, 0]], from: "EPSG:999999", to: "EPSG:3857") }
        do {
            _ = try pool.transform([[0, 0]], from: "EPSG:4326", to: "EPSG:0")
            Issue.record("EPSG:0 was accepted")
        } catch {
            guard case .unknownCRS(let field, _, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(field == "target")
        }
    }

    @Test(arguments: ["source", "target"])
    func aNameIsNotCutAtANulCharacter(field: String) {
        // PROJ reads C strings: without the check this was EPSG:4326, and the transform succeeded.
        let (source, target) = field == "source" ? ("EPSG:4326\u{0}garbage", "EPSG:3857") : ("EPSG:4326", "EPSG:3857\u{0}")
        do {
            _ = try pool.transform([[0, 0]], from: source, to: target)
            Issue.record("a name with a NUL was accepted")
        } catch {
            guard case .unknownCRS(let named, _, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(named == field)
        }
    }

    @Test func positionsOutsideTheProjectionAreNil() throws {
        // UTM zone 54N (central meridian 141°E) has no image 90° of longitude away on the equator.
        let result = try pool.transform([[141, 0], [-129, 0]], from: "EPSG:4326", to: "EPSG:32654")
        #expect(result[0] != nil && result[1] == nil)
    }
}
