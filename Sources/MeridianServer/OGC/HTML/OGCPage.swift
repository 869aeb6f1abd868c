import Foundation
import WireJSON

/// The HTML representation of an `/ogc` resource (`f=html`, or a browser's `Accept: text/html`):
/// a small page built from the JSON the resource answers, with links between the pages and, for
/// features, a Leaflet map drawn from the map page's own files (`/web/vendor/leaflet/`) over its
/// base map (`/tiles/osm.json`). Every text from the data is escaped; the features reach the
/// map's script as JSON in a `<script type="application/json">` element with `<`, `>` and `&`
/// written as `\u` escapes, so no value can end the element.
struct OGCPage {
    /// Which resource the page shows.
    enum Resource: Sendable { case landing, conformance, collections, collection, queryables, items, item }

    /// The element id of the map, and the script that draws it.
    static let mapElementID = "map"
    static let leafletScript = "/web/vendor/leaflet/leaflet.js"
    static let leafletStyle = "/web/vendor/leaflet/leaflet.css"

    let resource: Resource
    /// The resource's JSON (in CRS84 when it holds features).
    let json: JSONValue
    /// The request's path (`/ogc/collections/devices/items`), for the breadcrumbs.
    let path: String

    /// The whole page.
    func render() -> String {
        let title = Self.string(json.objectValue?["title"]) ?? defaultTitle
        var html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Self.escape(title)) – Meridian OGC API</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="\(Self.leafletStyle)">
        <style>\(Self.style)</style>
        </head>
        <body>
        <nav>\(breadcrumbs())</nav>
        <h1>\(Self.escape(title))</h1>

        """
        if let description = Self.string(json.objectValue?["description"]) { html += "<p>\(Self.escape(description))</p>\n" }
        html += body()
        html += links()
        html += "<p class=\"alternate\"><a href=\"\(Self.escape(Self.withFormat(path, "json")))\">This page as JSON</a></p>\n"
        html += "</body>\n</html>\n"
        return html
    }

    private var defaultTitle: String {
        switch resource {
        case .landing: "Meridian"
        case .conformance: "Conformance"
        case .collections: "Collections"
        case .collection: Self.string(json.objectValue?["id"]) ?? "Collection"
        case .queryables: "Queryables"
        case .items: "Items"
        case .item: Self.string(json.objectValue?["id"]).map { "Feature \($0)" } ?? "Feature"
        }
    }

    /// Links to each level above the page: the landing page, the collections, the collection, its items.
    private func breadcrumbs() -> String {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.first == "ogc" else { return "" }
        var crumbs: [String] = []
        for depth in 1...parts.count {
            let href = "/" + parts.prefix(depth).joined(separator: "/")
            let name = depth == 1 ? "OGC API" : (Self.percentDecoded(parts[depth - 1]))
            crumbs.append(depth == parts.count ? Self.escape(name) : "<a href=\"\(Self.escape(Self.withFormat(href, "html")))\">\(Self.escape(name))</a>")
        }
        return crumbs.joined(separator: " › ")
    }

    /// The resource's `links`, each as written (JSON ones to their JSON; HTML ones to pages).
    private func links() -> String {
        guard case .array(let links)? = json.objectValue?["links"], !links.isEmpty else { return "" }
        let items = links.compactMap { link -> String? in
            guard let members = link.objectValue, let href = Self.string(members["href"]) else { return nil }
            let rel = Self.string(members["rel"]) ?? "link"
            let label = Self.string(members["title"]) ?? href
            let type = Self.string(members["type"]).map { " <small>(\(Self.escape($0)))</small>" } ?? ""
            return "<li>\(Self.escape(rel)): <a href=\"\(Self.escape(href))\">\(Self.escape(label))</a>\(type)</li>"
        }
        return "<h2>Links</h2>\n<ul class=\"links\">\n\(items.joined(separator: "\n"))\n</ul>\n"
    }

    /// A Leaflet map of `features` (a GeoJSON Feature or FeatureCollection in CRS84).
    static func map(of features: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(features)
        let data = scriptSafe(writer.text)
        return """
        <div id="\(mapElementID)"></div>
        <script src="\(leafletScript)"></script>
        <script type="application/json" id="ogc-features">\(data)</script>
        <script>
        const map = L.map('\(mapElementID)', { worldCopyJump: true }).setView([0, 0], 1);
        fetch('/tiles/osm.json').then((r) => r.ok ? r.json() : null).then((info) => {
          if (!info) return;
          const attribution = document.createElement('span');
          attribution.textContent = info.attribution || '';
          L.tileLayer(info.tiles[0], { minZoom: 0, maxZoom: 18, minNativeZoom: info.minzoom, maxNativeZoom: info.maxzoom,
            attribution: attribution.innerHTML }).addTo(map);
        });
        const data = JSON.parse(document.getElementById('ogc-features').textContent);
        const layer = L.geoJSON(data, { onEachFeature: (feature, shape) => shape.bindPopup(() => {
          const text = document.createElement('div');
          text.textContent = String(feature.id);
          return text;
        }) }).addTo(map);
        if (layer.getBounds().isValid()) map.fitBounds(layer.getBounds(), { maxZoom: 14, padding: [20, 20] });
        </script>

        """
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` as character references.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(c)
            }
        }
        return result
    }

    /// JSON text that cannot end a `<script>` element: `<`, `>`, `&`, U+2028 and U+2029 (which
    /// occur only inside its strings) as `\u` escapes.
    static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026").replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }

    /// `href` with its `f` query parameter set to `format` (other parameters kept).
    static func withFormat(_ href: String, _ format: String) -> String {
        guard var components = URLComponents(string: href) else { return href }
        var items = (components.queryItems ?? []).filter { $0.name != "f" }
        items.append(URLQueryItem(name: "f", value: format))
        components.queryItems = items
        return components.string ?? href
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    static func percentDecoded(_ text: String) -> String { text.removingPercentEncoding ?? text }

    /// A cell's text: a string as itself, anything else as compact JSON.
    static func cell(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        if case .string(let text) = value { return escape(text) }
        var writer = JSONWriter()
        writer.value(value)
        return escape(writer.text)
    }

    private static let style = """
    body{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em;color:#222}\
    nav{font-size:.9em;color:#555}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}\
    #map{height:420px;margin:1em 0;border:1px solid #ccc}.alternate{font-size:.9em}
    """
}
