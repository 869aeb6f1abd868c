import MeridianHTTP
import Hummingbird

/// The page's files under `/web/` (script, style, Leaflet and its images; ``WebPage/servedFiles``,
/// nothing else of the folder), served by Hummingbird's file middleware (ETag, `If-None-Match`,
/// ranges, no `..`), before any key is asked for: they hold no tenant's data. Every answer is revalidated (`no-cache`), so a
/// changed page reaches the browser at its next load.
struct WebFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    private let files: FileMiddleware<Context, LocalFileSystem>

    init(root: String) {
        files = FileMiddleware(root, urlBasePath: String(WebPage.filesPrefix.dropLast()), cacheControl: .init([(MediaType(type: .any), [.noCache])]))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(WebPage.filesPrefix) else { return try await next(request, context) }
        let notFound = HTTPError(.notFound, message: "the page has no file \(path)")
        guard WebPage.servedFiles.contains(where: { $0.hasSuffix("/") ? path.hasPrefix($0) : path == $0 }) else { throw notFound }
        return try await files.handle(request, context: context) { _, _ in throw notFound }
    }
}
