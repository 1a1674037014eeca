import Testing

@testable import AppStoreSimulator

@Suite struct HTTPResponseSerializationTests {
    private func wire(_ response: HTTPResponse, keepAlive: Bool = true, omitBody: Bool = false) -> String {
        String(
            decoding: response.serialized(
                keepAlive: keepAlive, omitBody: omitBody, date: "Sun, 06 Nov 1994 08:49:37 GMT"), as: UTF8.self)
    }

    @Test func writesFramingHeadersAndReplacesTheHandlers() {
        let response = HTTPResponse(
            status: 200,
            headers: [("content-length", "999"), ("Connection", "keep-alive"), ("Date", "x"), ("X-A", "1")],
            body: Array("hello".utf8)
        )
        #expect(
            wire(response)
                == "HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 5\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: keep-alive\r\n\r\nhello"
        )
        #expect(wire(response, keepAlive: false).contains("\r\nConnection: close\r\n"))
    }

    @Test func headKeepsLengthWithoutBody() {
        #expect(
            wire(.text("hello"), omitBody: true).hasSuffix(
                "Content-Length: 5\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: keep-alive\r\n\r\n"))
    }

    @Test func noContentHasNoLengthAndNoBody() {
        let text = wire(HTTPResponse(status: 204, body: Array("x".utf8)))
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test func dropsHeadersThatWouldInjectLines() {
        let text = wire(
            HTTPResponse(status: 200, headers: [("X-Evil", "a\r\nSet-Cookie: b"), ("Bad Name", "c"), ("X-Ok", "d")]))
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
