public import MapGeometry
public import Timeline
public import WireJSON

extension Filter {
    /// A CQL2 value expression: what comparisons and functions take as arguments.
    public indirect enum Expression: Hashable, Sendable {
        case property(String)
        case string(String)
        /// Compared by exact value (`9007199254740993` is not `9007199254740992`).
        case number(JSONNumber)
        case boolean(Bool)
        /// `DATE('…')`, `TIMESTAMP('…')`, parsed once.
        case instant(TemporalLiteral)
        /// `INTERVAL(a, b)`: each end an instant, a property, or ``openEnd``.
        case interval(Expression, Expression)
        /// `'..'` as an end of an interval: unbounded.
        case openEnd
        /// `(a, b, …)` in text, a JSON array.
        case array([Expression])
        case geometry(FilterGeometry)
        /// `CASEI(…)` / `ACCENTI(…)` of a non-literal; a literal is folded once (``folded``).
        case fold(TextFolding, Expression)
        /// A folded literal: the expression as written and its folded text.
        case folded(FoldedLiteral)
        case arithmetic(ArithmeticOperator, Expression, Expression)
    }

    /// `+ - * / % div ^`.
    public enum ArithmeticOperator: String, Hashable, Sendable, CaseIterable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%", integerDivide = "div", power = "^"
    }

    /// A `DATE` or `TIMESTAMP` literal as written, with its instant (a date: midnight UTC).
    public struct TemporalLiteral: Hashable, Sendable {
        public let text: String
        public let isDate: Bool
        public let microseconds: Int64

        /// Nil unless `text` is a date (`2021-04-16`) when `isDate`, an RFC 3339 date-time otherwise.
        public init?(_ text: String, isDate: Bool) {
            guard let microseconds = isDate ? Self.date(text) : Instant(rfc3339: text)?.microseconds else { return nil }
            self.text = text
            self.isDate = isDate
            self.microseconds = microseconds
        }

        /// A `full-date` (RFC 3339) as the microseconds of its midnight, UTC.
        static func date(_ text: some StringProtocol) -> Int64? {
            guard text.utf8.count == 10 else { return nil }
            return Instant(rfc3339: text + "T00:00:00Z")?.microseconds
        }
    }

    /// A `CASEI`/`ACCENTI` literal: the wrapped expression as written and its folded text.
    public struct FoldedLiteral: Hashable, Sendable {
        public let folding: TextFolding
        public let inner: Expression
        public let text: String

        /// Nil unless `inner` is a string literal or another folded literal.
        init?(_ folding: TextFolding, _ inner: Expression) {
            switch inner {
            case .string(let text): self.text = folding.apply(text)
            case .folded(let literal): self.text = folding.apply(literal.text)
            default: return nil
            }
            self.folding = folding
            self.inner = inner
        }
    }

    /// `CASEI` or `ACCENTI` around `inner`, folded now when it is a literal.
    static func folding(_ folding: TextFolding, _ inner: Expression) -> Expression {
        FoldedLiteral(folding, inner).map(Expression.folded) ?? .fold(folding, inner)
    }
}

/// A `like` pattern: as written (a string, possibly in `CASEI`/`ACCENTI`), and compiled once from its folded text.
public struct LikeOperand: Hashable, Sendable {
    /// The pattern expression as written: `.string` or `.folded`.
    public let written: Filter.Expression
    public let pattern: LikePattern

    init?(_ written: Filter.Expression) {
        switch written {
        case .string(let text): pattern = LikePattern(text)
        case .folded(let literal): pattern = LikePattern(literal.text)
        default: return nil
        }
        self.written = written
    }
}
