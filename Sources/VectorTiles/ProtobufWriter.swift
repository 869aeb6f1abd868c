/// The few protocol-buffer encodings a vector tile needs (protobuf's wire format: varints,
/// zigzag, length-delimited fields, packed repeated varints, fixed 64-bit doubles).
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
    }

    /// Bytes already encoded (fields written by another writer).
    mutating func append(_ encoded: [UInt8]) {
        bytes.append(contentsOf: encoded)
    }

    mutating func key(_ field: UInt64, _ type: WireType) {
        varint(field << 3 | type.rawValue)
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Zigzag: 0, −1, 1, −2, … → 0, 1, 2, 3, … so small negative numbers stay short.
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    mutating func field(_ field: UInt64, varint value: UInt64) {
        key(field, .varint)
        varint(value)
    }

    mutating func field(_ field: UInt64, double value: Double) {
        key(field, .fixed64)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func field(_ field: UInt64, bytes content: some Collection<UInt8>) {
        key(field, .lengthDelimited)
        varint(UInt64(content.count))
        bytes.append(contentsOf: content)
    }

    mutating func field(_ field: UInt64, string: String) {
        self.field(field, bytes: string.utf8)
    }

    /// A packed repeated field of varints.
    mutating func field(_ field: UInt64, packed values: [UInt32]) {
        var packed = ProtobufWriter()
        for value in values { packed.varint(UInt64(value)) }
        self.field(field, bytes: packed.bytes)
    }
}
