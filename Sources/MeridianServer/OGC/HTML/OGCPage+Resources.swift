import Foundation
import WireJSON

// The part of each page that is the resource's own: conformance classes, the collections, a
// collection's extent and CRSs, features on a map and in a table.

extension OGCPage {
    /// Columns an items table shows at most (GIS data can have hundreds; the JSON has them all).
    static let maxColumns = 12

    func body() -> String {
        let members = json.objectValue ?? [:]
        switch resource {
        case .landing:
            return ""
        case .conformance:
            guard case .array(let classes)? = members["conformsTo"] else { return "" }
            return "<ul>\n" + classes.map { "<li>\(Self.cell($0))</li>" }.joined(separator: "\n") + "\n</ul>\n"
        case .collections:
            guard case .array(let collections)? = members["collections"] else { return "" }
            let rows = collections.compactMap(\.objectValue).map { collection in
                let id = Self.string(collection["id"]) ?? ""
                let href = Self.withFormat(path.hasSuffix("/") ? path + id : path + "/" + id, "html")
                return "<tr><td><a href=\"\(Self.escape(href))\">\(Self.escape(id))</a></td><td>\(Self.cell(collection["title"]))</td><td>\(Self.cell(collection["description"]))</td></tr>"
            }
            return "<table>\n<tr><th>id</th><th>title</th><th>description</th></tr>\n" + rows.joined(separator: "\n") + "\n</table>\n"
        case .collection:
            let items = Self.withFormat((path.hasSuffix("/") ? path : path + "/") + "items", "html")
            var rows = ["id", "itemType", "storageCrs"].compactMap { key in members[key].map { "<tr><th>\(key)</th><td>\(Self.cell($0))</td></tr>" } }
            if let extent = members["extent"]?.objectValue {
                if let box = extent["spatial"]?.objectValue?["bbox"] { rows.append("<tr><th>spatial extent</th><td>\(Self.cell(box))</td></tr>") }
                if let interval = extent["temporal"]?.objectValue?["interval"] { rows.append("<tr><th>temporal extent</th><td>\(Self.cell(interval))</td></tr>") }
            }
            if case .array(let crs)? = members["crs"] {
                rows.append("<tr><th>crs</th><td>" + crs.map(Self.cell).joined(separator: "<br>") + "</td></tr>")
            }
            return "<p><a href=\"\(Self.escape(items))\">Browse the items</a></p>\n<table>\n" + rows.joined(separator: "\n") + "\n</table>\n"
        case .queryables:
            // One row per property a filter may name: its name, its JSON Schema type (or format) and title.
            let properties = members["properties"]?.objectValue ?? [:]
            let rows = properties.keys.sorted().map { name in
                let schema = properties[name]?.objectValue ?? [:]
                let type = schema["format"] ?? schema["type"] ?? schema["$ref"]
                return "<tr><td>\(Self.escape(name))</td><td>\(Self.cell(type))</td><td>\(Self.cell(schema["title"] ?? schema["description"]))</td></tr>"
            }
            return "<table>\n<tr><th>property</th><th>type</th><th>title</th></tr>\n" + rows.joined(separator: "\n") + "\n</table>\n"
        case .items:
            guard case .array(let features)? = members["features"] else { return Self.map(of: json) }
            let counts = ["numberReturned", "numberMatched"].compactMap { key in members[key].map { "\(key): \(Self.cell($0))" } }
            return Self.map(of: json) + "<p>\(counts.joined(separator: " · "))</p>\n" + table(of: features)
        case .item:
            let properties = members["properties"]?.objectValue ?? [:]
            let rows = properties.keys.sorted().map { "<tr><th>\(Self.escape($0))</th><td>\(Self.cell(properties[$0]))</td></tr>" }
            return Self.map(of: json) + "<table>\n<tr><th>id</th><td>\(Self.cell(members["id"]))</td></tr>\n" + rows.joined(separator: "\n") + "\n</table>\n"
        }
    }

    /// One row per feature: its id (a link to its page) and its properties' columns, in the
    /// order they first appear, up to ``maxColumns``.
    private func table(of features: [JSONValue]) -> String {
        var columns: [String] = []
        for feature in features {
            for key in (feature.objectValue?["properties"]?.objectValue ?? [:]).keys.sorted() where !columns.contains(key) && columns.count < Self.maxColumns {
                columns.append(key)
            }
        }
        let base = path.hasSuffix("/") ? path : path + "/"
        let rows = features.compactMap(\.objectValue).map { feature in
            let id = Self.cell(feature["id"])
            let idText: String
            if case .string(let raw)? = feature["id"] {
                let escapedID = raw.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? raw
                idText = "<a href=\"\(Self.escape(Self.withFormat(base + escapedID, "html")))\">\(id)</a>"
            } else {
                idText = id
            }
            let properties = feature["properties"]?.objectValue ?? [:]
            return "<tr><td>\(idText)</td>" + columns.map { "<td>\(Self.cell(properties[$0]))</td>" }.joined() + "</tr>"
        }
        let head = "<tr><th>id</th>" + columns.map { "<th>\(Self.escape($0))</th>" }.joined() + "</tr>"
        return "<table>\n\(head)\n" + rows.joined(separator: "\n") + "\n</table>\n"
    }
}
