extension HTTPResponse {
    /// Header fields the server writes itself; the handler's copies are dropped.
    static let framingHeaders = ["Content-Length", "Transfer-Encoding", "Date", "Connection"]

    /// Whether the handler asked for the connection to close after this response.
    var asksToClose: Bool {
        headers.contains { name, value in
            HTTPHeaders.namesMatch(name, "Connection") && HTTPRequestParser.tokens(value).contains("close")
        }
    }

    /// The bytes on the wire: status line, headers, blank line and (unless forbidden) the body.
    ///
    /// - Parameters:
    ///   - keepAlive: whether the connection stays open; decides the `Connection` header.
    ///   - omitBody: `true` for HEAD: `Content-Length` still describes the body that GET would send.
    ///   - date: the `Date` header value.
    func serialized(keepAlive: Bool, omitBody: Bool, date: String) -> [UInt8] {
        // A status the wire cannot carry is a handler bug; answer 500 rather than corrupt the stream.
        let status = (100...999).contains(self.status) ? self.status : 500
        // RFC 9110 §8.6 / §15: 1xx and 204 carry neither a body nor Content-Length; 304 carries no body.
        let bodyForbidden = status < 200 || status == 204 || status == 304
        let sendsLength = !(status < 200 || status == 204)

        var head = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n"
        for (name, value) in headers where Self.isWritable(name, value) {
            if Self.framingHeaders.contains(where: { HTTPHeaders.namesMatch($0, name) }) { continue }
            head += "\(name): \(value)\r\n"
        }
        if sendsLength { head += "Content-Length: \(status == self.status ? body.count : 0)\r\n" }
        head += "Date: \(date)\r\n"
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"

        var bytes = Array(head.utf8)
        if !bodyForbidden && !omitBody && status == self.status {
            bytes.append(contentsOf: body)
        }
        return bytes
    }

    /// Drops fields that would break the framing (CR/LF injection) instead of writing them.
    static func isWritable(_ name: String, _ value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPRequestParser.isTokenByte)
            && value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
