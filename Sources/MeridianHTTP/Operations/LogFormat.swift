/// How the server writes its log lines.
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's default text lines, for a terminal.
    case text
    /// One JSON object per line (`time`, `level`, `message`, metadata), for log collectors.
    case json
}
