/// What a device id may be: the feed's own name, printable and short.
public enum DeviceIdentifier {
    public static let rule = "must be 1…128 characters of letters, digits and - _ . : @"

    public static func isValid(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil || "-_.:@".unicodeScalars.contains(scalar)
        }
    }
}
