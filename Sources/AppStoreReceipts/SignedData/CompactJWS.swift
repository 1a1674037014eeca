import Foundation

/// A compact JWS (RFC 7515 §7.1) split and decoded, nothing verified yet: the header's `alg` and
/// `x5c`, the payload's bytes, the signature and the exact bytes it signs.
///
/// Parsing works on the UTF-8 bytes as received. It is strict where leniency would let two
/// different texts carry one signature: no whitespace inside, no padding, canonical base64url; and
/// where two readers could read one header differently: a name given twice, or `crit`, is refused.
struct CompactJWS {
    /// Apple's signed data is a few kilobytes (a notification with nested data about 15 KB); a
    /// larger input is not Apple's and is refused before any decoding.
    static let maximumLength = 256 * 1024

    let algorithm: String
    /// `x5c` as given (standard base64 DER certificates); nil when the header has none.
    let certificateChain: [String]?
    /// Where the verified chain of this header is remembered.
    let verifiedChain: VerifiedChainSlot
    let payload: [UInt8]
    let signature: [UInt8]
    /// `segment0 "." segment1`, the bytes the signature covers.
    let signingInput: ArraySlice<UInt8>

    /// Whether `text` looks like a compact JWS rather than base64 receipt data: two dots, and a
    /// header segment that starts as base64url-encoded JSON does (`eyJ`, i.e. `{"`). Receipt data
    /// never contains a dot.
    static func looksLikeJWS(_ text: some Collection<UInt8>) -> Bool {
        // The job asks this of every row: a stored string's bytes are read in place, not through the
        // generic collection, whose every step is a call.
        text.withContiguousStorageIfAvailable(looksLikeJWS(bytes:))
            ?? Array(text).withUnsafeBufferPointer(looksLikeJWS(bytes:))
    }

    private static func looksLikeJWS(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // The prefix first: a receipt row is kilobytes of base64 that never starts with `eyJ`.
        var index = 0
        for expected in "eyJ".utf8 {
            while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == expected else { return false }
            index += 1
        }
        var dots = 0
        for byte in bytes[index...] where byte == UInt8(ascii: ".") { dots += 1 }
        return dots == 2
    }

    /// Splits and decodes `input` (surrounding whitespace ignored).
    /// - Parameter headers: headers already read; Apple signs months of data under one header.
    init(_ input: [UInt8], headers: JWSHeaderCache? = nil) throws(SignedDataFailure) {
        var start = input.startIndex
        var end = input.endIndex
        while start < end, Self.isWhitespace(input[start]) { start += 1 }
        while end > start, Self.isWhitespace(input[end - 1]) { end -= 1 }
        let text = input[start..<end]
        guard !text.isEmpty else { throw .notJWS("empty") }
        guard text.count <= Self.maximumLength else { throw .notJWS("longer than \(Self.maximumLength) bytes") }
        guard let firstDot = Self.firstDot(in: text, from: start),
            let secondDot = Self.firstDot(in: text, from: firstDot + 1),
            Self.firstDot(in: text, from: secondDot + 1) == nil
        else { throw .notJWS("not three dot-separated segments") }

        guard let payload = Base64URL.decode(text[(firstDot + 1)..<secondDot]) else {
            throw .notJWS("payload is not base64url")
        }
        guard let signature = Base64URL.decode(text[(secondDot + 1)..<end]) else {
            throw .notJWS("signature is not base64url")
        }
        let segment = text[start..<firstDot]
        let header: Header
        if let headers {
            header = try headers.header(segment)
        } else {
            header = try Self.header(segment)
        }
        algorithm = header.algorithm
        certificateChain = header.certificateChain
        verifiedChain = header.verifiedChain
        self.payload = payload
        self.signature = signature
        signingInput = text[start..<secondDot]
    }

    /// What the header segment says: `alg` and `x5c`, and the chain they verified to, once they have.
    struct Header: Sendable {
        let algorithm: String
        let certificateChain: [String]?
        let verifiedChain = VerifiedChainSlot()
    }

    /// Reads a header segment (base64url JSON).
    static func header(_ segment: ArraySlice<UInt8>) throws(SignedDataFailure) -> Header {
        guard let headerBytes = Base64URL.decode(segment), !headerBytes.isEmpty else {
            throw .notJWS("header is not base64url")
        }
        let parsed: AppleJSONValue
        do {
            parsed = try AppleJSONParser.parse(headerBytes, rejectingDuplicateKeys: true)
        } catch {
            throw error.reason == .duplicateKey ? .duplicateHeaderKey : .notJWS("header is not JSON")
        }
        guard case .object(let header) = parsed else { throw .notJWS("header is not a JSON object") }
        // RFC 7515 §4.1.11: a recipient that does not understand every extension `crit` lists must
        // refuse the JWS; Apple's headers have none, and none is understood here.
        guard !header.contains("crit") else { throw .criticalHeader }
        guard case .string(let algorithm) = header["alg"] else { throw .notJWS("header has no alg") }
        return Header(algorithm: algorithm, certificateChain: try certificates(header["x5c"]))
    }

    /// `x5c`: an array of standard base64 DER certificates (RFC 7515 §4.1.6), kept as text: the
    /// verifier recognises a chain it has already checked by its text, before decoding anything.
    private static func certificates(_ value: AppleJSONValue?) throws(SignedDataFailure) -> [String]? {
        guard let value else { return nil }
        guard case .array(let entries) = value else { throw .missingCertificateChain }
        var chain: [String] = []
        for entry in entries {
            guard case .string(let text) = entry else { throw .undecodableCertificate("x5c entry is not a string") }
            chain.append(text)
        }
        return chain
    }

    /// The index of the first `.` in `text` at or after `start`, by `memchr`: the header, a certificate
    /// chain long, is most of a JWS's bytes.
    private static func firstDot(in text: ArraySlice<UInt8>, from start: Int) -> Int? {
        guard start < text.endIndex else { return nil }
        return text[start...].withUnsafeBytes { bytes in
            memchr(bytes.baseAddress!, Int32(UInt8(ascii: ".")), bytes.count).map {
                start + (UnsafeRawPointer($0) - bytes.baseAddress!)
            }
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
