/// Maps (method, exact path) to handlers and answers 404 and 405 itself.
///
/// - A path with no route is `404 Not Found`.
/// - A known path with another method is `405 Method Not Allowed` with an `Allow` header listing the
///   path's methods.
/// - `HEAD` falls back to the path's `GET` route (the server then sends headers only).
///
/// Build it once, before the server starts; it is a value, so the running server sees a fixed table.
public struct HTTPRouter: HTTPHandler {
    private var routes: [String: [String: any HTTPHandler]] = [:]

    public init() {}

    /// Routes `method` requests for `path` (exact match, no query) to `handler`, replacing an earlier route.
    public mutating func add(_ method: String, _ path: String, _ handler: any HTTPHandler) {
        routes[path, default: [:]][method] = handler
    }

    /// Routes `method` requests for `path` to a closure.
    public mutating func add(
        _ method: String,
        _ path: String,
        _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) {
        add(method, path, HTTPHandlerClosure(handler))
    }

    /// The methods `path` answers, as sent in `Allow`; empty for an unknown path.
    public func allowedMethods(for path: String) -> [String] {
        guard let methods = routes[path]?.keys else { return [] }
        var allowed = Set(methods)
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return allowed.sorted()
    }

    public func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let methods = routes[request.path] else {
            return .error(404, "no route for \(request.path)")
        }
        if let handler = methods[request.method] ?? (request.method == "HEAD" ? methods["GET"] : nil) {
            return try handler.handle(request)
        }
        return .error(405, nil, headers: [("Allow", allowedMethods(for: request.path).joined(separator: ", "))])
    }
}
