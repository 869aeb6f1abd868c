import MeridianHTTP
import Annotations
import Foundation
import MapGeometry
import MeridianAPI
import WireJSON

/// CQL2 filters as requests carry them: a query parameter (CQL2-Text, also when `filter-lang` is
/// `cql-text`, its pre-standard name; CQL2-JSON text with `filter-lang=cql2-json`) or a body member (CQL2-JSON, or CQL2-Text as a string). Errors point
/// at the parameter or into the body member.
enum RequestFilter {
    /// The filter of `?filter=…&filter-lang=…`; nil without one.
    static func query(_ text: String?, lang: String?) throws(ProblemError) -> Filter? {
        guard let text else { return nil }
        do throws(FieldError) {
            if lang == "cql2-json" {
                guard let json = Array(text.utf8).withUnsafeBytes({ JSONValueParser.parse($0) }) else {
                    throw FieldError(path: [], message: "is not JSON (filter-lang is cql2-json)")
                }
                return try Filter(json: json)
            }
            return try Filter(text: text)
        } catch {
            throw ProblemError.invalid([.init(parameter: "filter", detail: error.description)])
        }
    }

    /// The filter a body carries in its member `member` (`filter`); nil without one.
    static func body(_ input: CQL2FilterInput?, member: String = "filter") throws(ProblemError) -> Filter? {
        guard let value = input?.json else { return nil }
        do throws(FieldError) {
            return try filter(value)
        } catch {
            throw ProblemError.invalid(pointer: JSONPointer.make([member] + error.path), error.message)
        }
    }

    /// The filter of a body member: CQL2-Text as a string, CQL2-JSON otherwise.
    static func filter(_ value: JSONValue) throws(FieldError) -> Filter {
        if case .string(let text) = value { return try Filter(text: text) }
        return try Filter(json: value)
    }
}
