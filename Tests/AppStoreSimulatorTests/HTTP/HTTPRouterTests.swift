import Testing
@testable import AppStoreSimulator

@Suite struct HTTPRouterTests {
    private var router: HTTPRouter {
        var router = HTTPRouter()
        router.add("POST", "/verifyReceipt") { _ in .text("verified") }
        router.add("GET", "/stats") { _ in .text("stats") }
        router.add("DELETE", "/stats") { _ in .text("reset") }
        return router
    }

    @Test func routesByMethodAndExactPath() throws {
        #expect(try router.handle(HTTPRequest(method: "POST", target: "/verifyReceipt?x=1")).body == Array("verified".utf8))
        #expect(try router.handle(HTTPRequest(method: "DELETE", target: "/stats")).body == Array("reset".utf8))
    }

    @Test func unknownPathIs404() throws {
        #expect(try router.handle(HTTPRequest(method: "POST", target: "/verifyReceipt/")).status == 404)
    }

    @Test func wrongMethodIs405WithAllow() throws {
        let response = try router.handle(HTTPRequest(method: "GET", target: "/verifyReceipt"))
        #expect(response.status == 405)
        #expect(response.headers.contains { $0.0 == "Allow" && $0.1 == "POST" })
        let stats = try router.handle(HTTPRequest(method: "PUT", target: "/stats"))
        #expect(stats.headers.contains { $0.0 == "Allow" && $0.1 == "DELETE, GET, HEAD" })
    }

    @Test func headFallsBackToGet() throws {
        #expect(try router.handle(HTTPRequest(method: "HEAD", target: "/stats")).status == 200)
        #expect(try router.handle(HTTPRequest(method: "HEAD", target: "/verifyReceipt")).status == 405)
    }
}

@Suite struct HTTPResponseSerializationTests {
    private func wire(_ response: HTTPResponse, keepAlive: Bool = true, omitBody: Bool = false) -> String {
        String(decoding: response.serialized(keepAlive: keepAlive, omitBody: omitBody, date: "Sun, 06 Nov 1994 08:49:37 GMT"), as: UTF8.self)
    }

    @Test func writesFramingHeadersAndReplacesTheHandlers() {
        let response = HTTPResponse(
            status: 200,
            headers: [("content-length", "999"), ("Connection", "keep-alive"), ("Date", "x"), ("X-A", "1")],
            body: Array("hello".utf8)
        )
        #expect(wire(response) == "HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 5\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: keep-alive\r\n\r\nhello")
        #expect(wire(response, keepAlive: false).contains("\r\nConnection: close\r\n"))
    }

    @Test func headKeepsLengthWithoutBody() {
        #expect(wire(.text("hello"), omitBody: true).hasSuffix("Content-Length: 5\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: keep-alive\r\n\r\n"))
    }

    @Test func noContentHasNoLengthAndNoBody() {
        let text = wire(HTTPResponse(status: 204, body: Array("x".utf8)))
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test func dropsHeadersThatWouldInjectLines() {
        let text = wire(HTTPResponse(status: 200, headers: [("X-Evil", "a\r\nSet-Cookie: b"), ("Bad Name", "c"), ("X-Ok", "d")]))
        #expect(!text.contains("Set-Cookie"))
        #expect(!text.contains("Bad Name"))
        #expect(text.contains("X-Ok: d\r\n"))
    }

    @Test func invalidStatusBecomes500() {
        #expect(wire(HTTPResponse(status: 42, body: [1, 2])).hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
    }

    @Test func handlerConnectionCloseIsHonoured() {
        #expect(HTTPResponse(status: 200, headers: [("connection", "Close")]).asksToClose)
        #expect(!HTTPResponse(status: 200, headers: [("Connection", "keep-alive")]).asksToClose)
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
