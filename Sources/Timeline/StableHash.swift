/// A hash that never changes between runs, machines or versions (Swift's `Hasher` is seeded per
/// process): FNV-1a, 64 bits (Fowler–Noll–Vo, offset basis 14695981039346656037, prime 1099511628211).
/// For names derived from content that clients keep: ETags, vector-tile feature ids.
public enum StableHash {
    public static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 1_099_511_628_211
        }
        return hash
    }
}
