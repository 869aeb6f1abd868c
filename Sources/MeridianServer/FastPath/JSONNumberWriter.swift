import NIOCore

/// Writes the hot paths' answers straight into a `ByteBuffer`, in the same JSON the generated
/// encoder produces: sorted keys, no spaces, whole numbers without a fraction, other numbers
/// in Swift's shortest round-trip form.
enum JSONNumberWriter {
    /// `{"<batchKey>":[{"<first>":a,"<second>":b},…]}`; `first` must sort before `second`.
    static func pairs(_ pairs: [(Double, Double)], batchKey: String, first: String, second: String) -> ByteBuffer {
        let open = "{\"\(first)\":", middle = ",\"\(second)\":"
        var buffer = ByteBufferAllocator().buffer(capacity: 16 + pairs.count * (open.utf8.count + middle.utf8.count + 40))
        buffer.writeString("{\"\(batchKey)\":[")
        for (index, pair) in pairs.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            buffer.writeString(open)
            write(pair.0, to: &buffer)
            buffer.writeString(middle)
            write(pair.1, to: &buffer)
            buffer.writeInteger(UInt8(ascii: "}"))
        }
        buffer.writeString("]}")
        return buffer
    }

    /// One finite number: an integer when it is whole and exact, else the shortest round-trip form.
    static func write(_ value: Double, to buffer: inout ByteBuffer) {
        if value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992 {
            buffer.writeString(String(Int64(value)))
        } else {
            buffer.writeString(value.description)
        }
    }
}
