import Testing

@testable import AppStoreSimulator

@Suite struct HTTPRequestParserTests {
    private func parse(_ text: String) throws(HTTPParseError) -> HTTPRequestHead {
        let bytes = Array(text.utf8)
        var scan = 0
        guard let end = try HTTPRequestParser.headEnd(in: bytes, start: 0, scanFrom: &scan) else {
            throw HTTPParseError(0, "incomplete")
        }
        return try HTTPRequestParser.parseHead(bytes[0..<end])
    }

    @Test func parsesRequestLineHeadersAndFraming() throws {
        let head = try parse(
            "POST /verifyReceipt?env=sandbox HTTP/1.1\r\nHost: localhost:8080\r\ncontent-TYPE: application/json\r\n"
                + "Content-Length: 42\r\nX-Empty:\r\nX-Trim: \t padded \t\r\n\r\n"
        )
        #expect(head.method == "POST")
        #expect(head.target == "/verifyReceipt?env=sandbox")
        #expect(head.version == .http11)
        #expect(head.contentLength == 42)
        #expect(head.keepAlive)
        #expect(!head.expectsContinue)
        #expect(head.headers["Content-Type"] == "application/json")
        #expect(head.headers["x-empty"] == "")
        #expect(head.headers["X-Trim"] == "padded")
        #expect(head.headers.count == 5)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false),
    ])
    func decidesKeepAlive(request: String, keepAlive: Bool) throws {
        #expect(try parse(request).keepAlive == keepAlive)
    }

    @Test func acceptsRepeatedIdenticalContentLengthAndExpectContinue() throws {
        let head = try parse(
            "PUT /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5, 5\r\nExpect: 100-Continue\r\n\r\n")
        #expect(head.contentLength == 5)
        #expect(head.expectsContinue)
    }

    /// Each malformed head and the status a client gets for it.
    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),  // two spaces
        ("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),  // trailing space
        ("GET /\r\nHost: a\r\n\r\n", 400),  // HTTP/0.9 style
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),  // method not a token
        ("GET noslash HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / http/1.1\r\nHost: a\r\n\r\n", 400),  // version is case-sensitive
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\n\r\n", 400),  // HTTP/1.1 without Host
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nName : x\r\n\r\n", 400),  // space before colon
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n", 400),  // obs-fold
        ("GET / HTTP/1.1\r\nHost: a\r\nX: bare\nLF\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: bare\rCR\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: nul\u{0}\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
        ("POST / HTTP/1.1\r\nHost: a\r\nExpect: the-unexpected\r\n\r\n", 417),
    ])
    func rejectsMalformedHeads(request: String, status: Int) {
        #expect(throws: HTTPParseError.self) { try parse(request) }
        do {
            _ = try parse(request)
        } catch {
            #expect(error.status == status, "\(error.reason)")
        }
    }

    @Test func limitsHeaderCountAndHeadSize() throws {
        let fields = (0..<100).map { "X-\($0): v\r\n" }.joined()
        do {
            _ = try parse("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n")
            Issue.record("101 fields accepted")
        } catch {
            #expect(error.status == 431)
        }
        let exactly100 = "GET / HTTP/1.1\r\nHost: a\r\n" + (0..<99).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        #expect(try parse(exactly100).headers.count == 100)

        let big = Array(("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 16 * 1024)).utf8)
        var scan = 0
        #expect(throws: HTTPParseError(431, "request head exceeds 16384 bytes")) {
            _ = try HTTPRequestParser.headEnd(in: big, start: 0, scanFrom: &scan)
        }
    }

    @Test func findsHeadEndAcrossIncrementalReads() throws {
        let full = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\nNEXT".utf8)
        var scan = 0
        var found: Int?
        for count in 1...full.count {
            found = try HTTPRequestParser.headEnd(in: Array(full[0..<count]), start: 0, scanFrom: &scan)
            if found != nil { break }
        }
        #expect(found == full.count - 4)
    }

    @Test(
        arguments: [
            ("/verifyReceipt", "/verifyReceipt", nil),
            ("/stats?format=json&x", "/stats", "format=json&x"),
            ("/?", "/", ""),
            ("http://localhost:8080/verifyReceipt?a=1", "/verifyReceipt", "a=1"),
            ("http://localhost:8080", "/", nil),
            ("*", "*", nil),
        ] as [(String, String, String?)])
    func splitsTargetIntoPathAndQuery(target: String, path: String, query: String?) {
        let request = HTTPRequest(method: "GET", target: target)
        #expect(request.path == path)
        #expect(request.query == query)
    }

    @Test func decodesQueryValues() {
        let request = HTTPRequest(method: "GET", target: "/stats?name=a%20b+c&flag&x=1")
        #expect(request.queryValue("name") == "a b c")
        #expect(request.queryValue("flag") == "")
        #expect(request.queryValue("missing") == nil)
    }
}
