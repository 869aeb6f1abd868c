import Foundation

/// A header field that lists choices with weights (RFC 9110 §12.4.2): `Accept`,
/// `Accept-Encoding`. `text/plain;q=0.5, application/json` is two choices, weights 0.5 and 1.
public struct QualityList: Sendable {
    /// One listed choice, lowercased, without its parameters, and its weight 0…1.
    public struct Choice: Sendable, Equatable {
        public var value: String
        public var quality: Double
    }

    public let choices: [Choice]

    /// The choices of the field's values (several fields of one name are one list); an element
    /// whose weight is not a number 0…1 counts as weight 1, as a lenient reader takes it.
    public init(_ fields: some Sequence<String>) {
        choices = fields.flatMap { $0.split(separator: ",") }.compactMap { element in
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let value = parts.first?.lowercased(), !value.isEmpty else { return nil }
            let weight = parts.dropFirst().first { $0.lowercased().hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return Choice(value: value, quality: weight.map { (0...1).contains($0) ? $0 : 1 } ?? 1)
        }
    }

    /// The weight the list gives a media type (`application/json`): that of its most specific
    /// matching range (`application/json` over `application/*` over `*/*`), 0 when none matches.
    public func quality(ofMediaType type: String) -> Double {
        let major = type.prefix { $0 != "/" }
        let ranges = [type, "\(major)/*", "*/*"]
        for range in ranges {
            if let choice = choices.first(where: { $0.value == range }) { return choice.quality }
        }
        return 0
    }

    /// The weight the list gives a content coding (`gzip`): its own, else `*`'s, else 0.
    public func quality(ofCoding coding: String) -> Double {
        (choices.first { $0.value == coding } ?? choices.first { $0.value == "*" })?.quality ?? 0
    }
}
