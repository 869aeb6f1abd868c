/// An answer other than the one a ``Meridian`` call asked for, with the server's problem details
/// (RFC 9457) when it sent them. The generated ``Client`` hands such answers back as cases of each
/// operation's `Output` (`.tooManyRequests(…)`, `.undocumented(statusCode:…)`); the hand-written
/// calls throw this instead, so one `catch` reads them all.
public struct MeridianError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status; 0 when the answer said none (a documented answer without a problem body).
    public var status: Int
    /// The problem+json body: `title`, `detail`, and `errors` pointing at each offending field.
    public var problem: Components.Schemas.Problem?
    /// `Retry-After` of a 429, 503 or 507, in seconds.
    public var retryAfter: Int?
    /// The output's case as the generated code names it (`preconditionFailed`, `undocumented`…).
    public var answer: String

    /// An error with these parts (tests and other transports make their own).
    public init(status: Int, problem: Components.Schemas.Problem? = nil, retryAfter: Int? = nil, answer: String = "") {
        self.status = status
        self.problem = problem
        self.retryAfter = retryAfter
        self.answer = answer
    }

    /// The error an operation's `Output` stands for when it is not the case the caller wanted.
    ///
    /// Every error answer of the contract has the same shape (`headers.retryAfter` where the
    /// contract declares it, `body.applicationProblemJson` holding a `Problem`), but each
    /// operation's `Output` is its own enum with its own cases; this reads that shape through
    /// `Mirror` once, instead of a `switch` over every case of every operation.
    public init(answer output: some Sendable) {
        let answer = Mirror(reflecting: output).children.first
        self.answer = answer?.label ?? "\(output)"
        let response = answer.map { Mirror(reflecting: $0.value) }
        let body = response?.descendant("body").map { Mirror(reflecting: $0) }
        self.problem = body?.children.first?.value as? Components.Schemas.Problem
        self.retryAfter = response?.descendant("headers", "retryAfter") as? Int
        // `.undocumented(statusCode: Int, UndocumentedPayload)`: the code is the tuple's first member.
        self.status = problem?.status ?? (response?.descendant("statusCode") as? Int) ?? 0
    }

    public var description: String {
        let detail = problem.map { [$0.title, $0.detail].compactMap { $0 }.joined(separator: ": ") } ?? answer
        return "HTTP \(status) \(detail)"
    }
}
