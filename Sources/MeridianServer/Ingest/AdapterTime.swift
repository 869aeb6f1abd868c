import Timeline

/// The times tracking apps write, read as instants.
enum AdapterTime {
    /// Traccar's reading of an OsmAnd `timestamp`: whole Unix seconds, or milliseconds when the
    /// number is 2³¹ − 1 or more (as Traccar tells them apart); else an ISO 8601 date-time (one
    /// with a `T`); else `yyyy-MM-dd HH:mm:ss`, read as UTC.
    static func osmAnd(_ text: String) -> Instant? {
        if !text.isEmpty, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) {
            guard let number = Int64(text), number < Int64.max / 1_000 else { return nil }
            let microseconds = number < Int64(Int32.max) ? number * 1_000_000 : number * 1_000
            return Instant.utcWritable.contains(microseconds) ? Instant(microseconds: microseconds) : nil
        }
        if text.contains("T") || text.contains("t") { return iso8601(text) }
        return Instant(rfc3339: text) ?? Instant(rfc3339: text + "Z")
    }

    /// An ISO 8601 date-time as apps write it: RFC 3339 (what Overland sends, `…T15:00:00Z`), or
    /// with a `±hhmm` offset (the example of Overland's README, `2015-10-01T08:00:00-0700`), or with
    /// no offset at all (UTC).
    static func iso8601(_ text: String) -> Instant? {
        if let instant = Instant(rfc3339: text) { return instant }
        let bytes = Array(text.utf8)
        if bytes.count > 5, bytes[bytes.count - 5] == UInt8(ascii: "+") || bytes[bytes.count - 5] == UInt8(ascii: "-"),
           bytes.suffix(4).allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) {
            return Instant(rfc3339: String(text.dropLast(2)) + ":" + String(text.suffix(2)))
        }
        return Instant(rfc3339: text + "Z")
    }
}
