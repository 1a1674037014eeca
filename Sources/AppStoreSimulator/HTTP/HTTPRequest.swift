import Foundation

/// The HTTP version of a request line; the server answers both as HTTP/1.1.
public enum HTTPVersion: String, Sendable, Equatable {
    case http10 = "HTTP/1.0"
    case http11 = "HTTP/1.1"
}

/// One parsed request with its whole body.
public struct HTTPRequest: Sendable {
    /// The method token exactly as sent (methods are case-sensitive: `get` is not `GET`).
    public var method: String
    /// The request target as sent, e.g. `/verifyReceipt?x=1`.
    public var target: String
    /// The target's path without query, not percent-decoded (`/` for an absolute-form target without one).
    public var path: String
    /// What follows the first `?`, not decoded; `nil` when there is no `?`.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client's `address:port`, IPv6 in brackets.
    public var remoteAddress: String
    /// Unique per server and connection, so a handler can tell keep-alive reuse from new connections.
    public var connectionID: Int
    /// 0 for the first request on a connection, 1 for the next, and so on.
    public var requestIndex: Int

    public init(
        method: String,
        target: String,
        version: HTTPVersion = .http11,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1:0",
        connectionID: Int = 0,
        requestIndex: Int = 0
    ) {
        self.method = method
        self.target = target
        (self.path, self.query) = Self.split(target)
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.connectionID = connectionID
        self.requestIndex = requestIndex
    }

    /// The body as `Data`, for `JSONDecoder`.
    public var bodyData: Data { Data(body) }

    /// The first value of query parameter `name`, percent- and `+`-decoded; `nil` when absent.
    public func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard Self.decode(parts[0]) == name else { continue }
            return parts.count > 1 ? Self.decode(parts[1]) : ""
        }
        return nil
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Splits origin-form (`/p?q`) or absolute-form (`http://host/p?q`) targets into path and query.
    static func split(_ target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let schemeEnd = rest.range(of: "://"), !rest.hasPrefix("/") {
            rest = rest[schemeEnd.upperBound...]
            rest = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { rest[$0...] } ?? ""
        }
        let path: Substring
        let query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            path = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        } else {
            path = rest
            query = nil
        }
        return (path.isEmpty ? "/" : String(path), query.map(String.init))
    }
}
