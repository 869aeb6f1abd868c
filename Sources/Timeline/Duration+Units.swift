extension Duration {
    /// Whole nanoseconds (what NIO's `TimeAmount` and random waits take).
    public var wholeNanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    /// Whole and fractional milliseconds.
    public var milliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }
}
