import Foundation

/// CQL2's insensitive comparisons: `CASEI` folds case (Unicode default case folding, full: `ß`
/// is `ss`, `İ` is `i̇`; the Turkish dotless `ı` stays itself, as Unicode's default folding
/// says), `ACCENTI` drops accents (canonical decomposition, NFD, without its combining marks:
/// general categories Mn, Mc, Me). Text that is all ASCII takes a path without Foundation and,
/// when nothing changes, without copying.
public enum TextFolding: String, Hashable, Sendable, CaseIterable {
    case casei, accenti

    /// `text` folded.
    public func apply(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII has no accents; case folds A–Z to a–z.
            guard self == .casei, text.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return text }
            return String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        switch self {
        case .casei:
            return text.folding(options: .caseInsensitive, locale: nil)
        case .accenti:
            var kept = String.UnicodeScalarView()
            for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
                switch scalar.properties.generalCategory {
                case .nonspacingMark, .spacingMark, .enclosingMark: continue
                default: kept.append(scalar)
                }
            }
            return String(kept)
        }
    }
}
