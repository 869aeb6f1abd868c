import Testing
@testable import VectorTiles

/// The encoder against the specification's own examples and protobuf's documented encodings; the
/// cross-check script decodes whole tiles with `mapbox-vector-tile` from PyPI.
@Suite struct VectorTileTests {
    /// Specification 2.1, 4.3.5.1 "Example Point": a point at (25, 17) is `[9, 50, 34]`.
    @Test func aPointIsTheSpecificationsExample() {
        #expect(GeometryCommand.point(x: 25, y: 17) == [9, 50, 34])
    }

    /// Protobuf's encoding guide: 150 is `96 01`; zigzag maps 0, −1, 1, −2, 2147483647, −2147483648
    /// to 0, 1, 2, 3, 4294967294, 4294967295.
    @Test func varintsAndZigzagAreProtobufs() {
        var writer = ProtobufWriter()
        writer.varint(150)
        #expect(writer.bytes == [0x96, 0x01])
        #expect([0, -1, 1, -2, 2_147_483_647, -2_147_483_648].map(ProtobufWriter.zigzag) == [0, 1, 2, 3, 4_294_967_294, 4_294_967_295])
    }

    /// A whole tile, byte for byte, written out by hand from `vector_tile.proto`.
    @Test func aTileOfOnePointIsTheseBytes() {
        var layer = VectorTileLayer(name: "c")
        layer.addPoint(id: 1, x: 25, y: 17, properties: [("n", .int(2))])
        let feature: [UInt8] = [0x08, 1, 0x12, 2, 0, 0, 0x18, 1, 0x22, 3, 9, 50, 34]
        let value: [UInt8] = [0x28, 2]
        var layerBytes: [UInt8] = [0x78, 2, 0x0A, 1, UInt8(ascii: "c"), 0x12, UInt8(feature.count)] + feature
        layerBytes += [0x1A, 1, UInt8(ascii: "n"), 0x22, UInt8(value.count)] + value + [0x28, 0x80, 0x20]
        #expect(VectorTile(layers: [layer]).encoded() == [0x1A, UInt8(layerBytes.count)] + layerBytes)
    }

    @Test func keysAndValuesAreSharedAndEmptyLayersLeftOut() {
        var layer = VectorTileLayer(name: "a")
        layer.addPoint(id: 1, x: 0, y: 0, properties: [("k", .string("v")), ("n", .int(-3))])
        layer.addPoint(id: 2, x: 4096, y: 4096, properties: [("k", .string("v")), ("d", .double(0.5)), ("b", .bool(true))])
        let empty = VectorTileLayer(name: "empty")
        let bytes = VectorTile(layers: [empty, layer]).encoded()
        #expect(VectorTile(layers: [empty]).encoded().isEmpty)
        #expect(!bytes.isEmpty && layer.count == 2)
        // "v" appears once in the value table although two features carry it.
        #expect(bytes.count == VectorTile(layers: [layer]).encoded().count)
        #expect(Self.occurrences(of: [0x22, 3, 0x0A, 1, UInt8(ascii: "v")], in: bytes) == 1)
    }

    private static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard haystack.count >= needle.count else { return 0 }
        return (0...(haystack.count - needle.count)).count { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
