import MapGeometry
import WireJSON

extension CQL2TextParser {
    /// Most characters a text filter may have.
    static let maxLength = 16_384

    /// Splits CQL2-Text into words, quoted names, strings, numbers and symbols, each with the
    /// offset (in characters) where it starts.
    static func tokenize(_ text: String) throws(FilterError) -> [(token: Token, offset: Int)] {
        guard text.count <= maxLength else { throw FilterError(.invalid, FieldError(path: [], message: "is longer than \(maxLength) characters")) }
        let characters = Array(text)
        var tokens: [(token: Token, offset: Int)] = []
        var index = 0
        func fail(_ message: String, at offset: Int) -> FilterError {
            FilterError(.syntax, FieldError(path: [], message: "at character \(offset + 1): \(message)"))
        }
        while index < characters.count {
            let start = index
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "'" || character == "\"" {
                // '…' is a string, "…" a property name; a doubled quote stands for itself.
                var value = ""
                index += 1
                while true {
                    guard index < characters.count else { throw fail("unterminated \(character == "'" ? "string" : "name")", at: start) }
                    if characters[index] == character {
                        if index + 1 < characters.count, characters[index + 1] == character {
                            value.append(character)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    value.append(characters[index])
                    index += 1
                }
                tokens.append((character == "'" ? .string(value) : .quoted(value), start))
            } else if character.isNumber && character.isASCII || (character == "." || (character == "-" || character == "+") && (!Self.endsOperand(tokens.last?.token) || index > 0 && characters[index - 1].isWhitespace))
                        && index + 1 < characters.count && (characters[index + 1].isASCII && characters[index + 1].isNumber || characters[index + 1] == ".") {
                index += 1
                while index < characters.count, characters[index].isASCII, characters[index].isNumber || characters[index] == "." || characters[index] == "e" || characters[index] == "E"
                    || ((characters[index] == "-" || characters[index] == "+") && (characters[index - 1] == "e" || characters[index - 1] == "E")) {
                    index += 1
                }
                guard let number = Self.number(String(characters[start..<index])) else {
                    throw fail("\(String(characters[start..<index])) is not a number", at: start)
                }
                tokens.append((.number(number), start))
            } else if character.isLetter || character == "_" {
                index += 1
                while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" || characters[index] == "." || characters[index] == ":" {
                    index += 1
                }
                tokens.append((.word(String(characters[start..<index])), start))
            } else if "<>=".contains(character) {
                let pair = index + 1 < characters.count ? String([character, characters[index + 1]]) : ""
                if ["<>", "<=", ">="].contains(pair) {
                    tokens.append((.symbol(pair), start))
                    index += 2
                } else {
                    tokens.append((.symbol(String(character)), start))
                    index += 1
                }
            } else if "(),+-*/%^".contains(character) {
                tokens.append((.symbol(String(character)), start))
                index += 1
            } else {
                throw fail("unexpected \(character)", at: start)
            }
        }
        return tokens
    }

    /// Whether `token` ends an operand, so a `-` or `+` right after it is arithmetic
    /// (`1038290-21`), not the sign of a number. After a space the sign stays a number's
    /// (`POINT(179 -18)`); the parser reads `x -1` as a subtraction all the same.
    static func endsOperand(_ token: Token?) -> Bool {
        switch token {
        case .number?, .string?, .quoted?: return true
        case .symbol(let symbol)?: return symbol == ")"
        case .word(let word)?: return !["AND", "OR", "NOT", "LIKE", "IN", "BETWEEN", "IS", "DIV"].contains(word.uppercased())
        case nil: return false
        }
    }

    /// A numeric literal's exact value: JSON's spelling, or CQL2's other ones (`+5`, `.5`, `5.`)
    /// spelled as JSON first; nil for anything else.
    static func number(_ text: String) -> JSONNumber? {
        if let number = JSONNumber(text) { return number }
        var json = text.hasPrefix("+") ? String(text.dropFirst()) : text
        let negative = json.hasPrefix("-")
        if negative { json.removeFirst() }
        if json.hasPrefix(".") { json = "0" + json }
        if let point = json.firstIndex(of: "."), json.index(after: point) == json.endIndex || "eE".contains(json[json.index(after: point)]) {
            json.insert("0", at: json.index(after: point))
        }
        return JSONNumber((negative ? "-" : "") + json)
    }
}
