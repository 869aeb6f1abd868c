/// What a device id may be: the feed's own name, printable and short.
public enum DeviceIdentifier {
    public static let rule = "must be 1…128 characters of ASCII letters, digits and - _ . : @, other than . and .."

    /// The contract's `^(?!\.\.?$)[A-Za-z0-9._:@-]{1,128}$`: `.` and `..` cannot travel in a URL path.
    public static func isValid(_ id: String) -> Bool {
        id != "." && id != ".." && (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "-_.:@".utf8.contains(byte)
            }
        }
    }
}
