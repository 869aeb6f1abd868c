extension Components.Schemas.LoggedEvent {
    /// The event's place in the log, whole or erased.
    public var sequence: Int64 {
        switch self {
        case .Event(let event): event.sequence
        case .ErasedEvent(let stub): stub.sequence
        }
    }

    /// The whole event; nil when its device was erased (only ``sequence`` remains).
    public var event: Components.Schemas.Event? {
        if case .Event(let event) = self { return event }
        return nil
    }
}
