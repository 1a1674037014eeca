/// A request's line and header fields, with the framing decisions drawn from them.
struct HTTPRequestHead: Sendable {
    var method: String
    var target: String
    var version: HTTPVersion
    var headers: HTTPHeaders
    /// Body length from `Content-Length`; 0 when absent.
    var contentLength: Int
    /// Whether the client lets the connection stay open after the response.
    var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request: the client waits for `100 Continue` before the body.
    var expectsContinue: Bool
}

/// A request the server refuses before calling the handler; answered with `status` and then closed.
struct HTTPParseError: Error, Equatable, Sendable {
    var status: Int
    var reason: String

    init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
}

/// Strict HTTP/1.1 request-head parsing (RFC 9112), as pure functions over bytes.
///
/// Strict on purpose: the simulator is a test double, and a lenient parser would hide client bugs.
/// - Lines end in CRLF; a bare CR or LF, an obsolete folded line, whitespace before a colon or a control
///   character in a value is 400. Empty lines before the request line are skipped (RFC 9112 §2.2).
/// - Request line: `token SP target SP HTTP/1.x`, single spaces; other `HTTP/d.d` versions are 505.
/// - The head (request line through the blank line) may be 16 KB and carry 100 fields, else 431.
/// - HTTP/1.1 needs exactly one `Host`. `Content-Length` must be digits; repeated or comma-listed copies
///   must agree (else 400). `Transfer-Encoding` (chunked bodies) is answered 411 Length Required, and 400
///   when it comes with `Content-Length` (the classic request-smuggling shape).
/// - `Expect: 100-continue` is supported; any other expectation is 417.
enum HTTPRequestParser {
    static let maxHeadBytes = 16 * 1024
    static let maxHeaderCount = 100

    /// Finds the end of the head that starts at `start`.
    ///
    /// - Parameters:
    ///   - scanFrom: where a previous call stopped looking, so a head trickling in byte by byte is scanned once.
    /// - Returns: the index just past the blank line, or `nil` if more bytes are needed.
    /// - Throws: 431 once more than `maxHeadBytes` arrived without a blank line.
    static func headEnd(in buffer: [UInt8], start: Int, scanFrom: inout Int) throws(HTTPParseError) -> Int? {
        var i = max(start, scanFrom - 3)
        let limit = min(buffer.count, start + maxHeadBytes)
        while i + 3 < limit {
            if buffer[i + 3] != 0x0A {
                i += 1
                continue
            }
            if buffer[i] == 0x0D && buffer[i + 1] == 0x0A && buffer[i + 2] == 0x0D { return i + 4 }
            i += 1
        }
        scanFrom = limit
        if buffer.count - start >= maxHeadBytes {
            throw HTTPParseError(431, "request head exceeds \(maxHeadBytes) bytes")
        }
        return nil
    }

    /// Parses a complete head (as located by `headEnd`, including the final CRLFCRLF).
    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPRequestHead {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            if bytes[i] == 0x0D && bytes[i + 1] == 0x0A {
                lines.append(bytes[lineStart..<i])
                i += 2
                lineStart = i
            } else {
                i += 1
            }
        }
        // The head ends with an empty line; drop it and any empty lines sent before the request line.
        if lines.last?.isEmpty == true { lines.removeLast() }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        guard let requestLine = lines.first else { throw HTTPParseError(400, "empty request") }
        guard lines.count - 1 <= maxHeaderCount else {
            throw HTTPParseError(431, "more than \(maxHeaderCount) header fields")
        }

        let (method, target, version) = try parseRequestLine(requestLine)
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let (name, value) = try parseField(line)
            headers.add(name, value)
        }
        return try frame(method: method, target: target, version: version, headers: headers)
    }

    static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (String, String, HTTPVersion) {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw HTTPParseError(400, "malformed request line")
        }
        guard parts[0].allSatisfy(isTokenByte) else { throw HTTPParseError(400, "invalid method") }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPParseError(400, "invalid request target")
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        guard target.hasPrefix("/") || target == "*" || target.hasPrefix("http://") || target.hasPrefix("https://")
        else {
            throw HTTPParseError(400, "invalid request target")
        }
        let versionText = String(decoding: parts[2], as: UTF8.self)
        guard let version = HTTPVersion(rawValue: versionText) else {
            let digits = Array(parts[2])
            let looksLikeHTTP =
                digits.count == 8 && versionText.hasPrefix("HTTP/") && digits[6] == 0x2E
                && isDigit(digits[5]) && isDigit(digits[7])
            throw looksLikeHTTP
                ? HTTPParseError(505, "unsupported version") : HTTPParseError(400, "malformed request line")
        }
        return (String(decoding: parts[0], as: UTF8.self), target, version)
    }

    static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (String, String) {
        if let first = line.first, first == 0x20 || first == 0x09 {
            throw HTTPParseError(400, "obsolete line folding")
        }
        guard let colon = line.firstIndex(of: 0x3A) else { throw HTTPParseError(400, "header field without colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw HTTPParseError(400, "invalid header field name")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        // Field values may hold HTAB, visible ASCII, SP and obs-text; CR, LF, NUL and DEL are not allowed.
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw HTTPParseError(400, "invalid character in header field value")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// Decides body length and connection reuse from the fields (RFC 9112 §6, §9.3).
    static func frame(method: String, target: String, version: HTTPVersion, headers: HTTPHeaders) throws(HTTPParseError)
        -> HTTPRequestHead
    {
        let hosts = headers.values(for: "Host")
        if version == .http11 && hosts.count != 1 || hosts.count > 1 {
            throw HTTPParseError(400, hosts.isEmpty ? "missing Host header" : "more than one Host header")
        }

        let lengths = headers.values(for: "Content-Length")
        if headers.contains("Transfer-Encoding") {
            if !lengths.isEmpty { throw HTTPParseError(400, "both Transfer-Encoding and Content-Length") }
            throw HTTPParseError(411, "request bodies need Content-Length; Transfer-Encoding is not supported")
        }
        var contentLength = 0
        if !lengths.isEmpty {
            let values = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingASCIIWhitespace() }
            guard let first = values.first,
                values.allSatisfy({ $0 == first }),
                !first.isEmpty, first.utf8.count <= 18, first.utf8.allSatisfy(isDigit),
                let parsed = Int(first)
            else {
                throw HTTPParseError(400, "invalid Content-Length")
            }
            contentLength = parsed
        }

        let connection = headers.values(for: "Connection").flatMap(tokens)
        let keepAlive =
            switch version {
            case .http11: !connection.contains("close")
            case .http10: connection.contains("keep-alive") && !connection.contains("close")
            }

        var expectsContinue = false
        if let expectation = headers["Expect"] {
            guard expectation.lowercased() == "100-continue" else {
                throw HTTPParseError(417, "unsupported expectation")
            }
            expectsContinue = version == .http11  // an HTTP/1.0 client cannot understand 100 Continue
        }

        return HTTPRequestHead(
            method: method,
            target: target,
            version: version,
            headers: headers,
            contentLength: contentLength,
            keepAlive: keepAlive,
            expectsContinue: expectsContinue
        )
    }

    /// The lowercased comma-separated tokens of a list-valued field such as `Connection`.
    static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingASCIIWhitespace().lowercased() }.filter { !$0.isEmpty }
    }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

extension StringProtocol {
    func trimmingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
