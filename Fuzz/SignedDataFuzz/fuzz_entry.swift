// libFuzzer entry for Apple's signed data: compact JWS, x5c certificates and the payloads. Not a
// SwiftPM target: compiled together with Sources/AppStoreReceipts (over OpenSSL's libcrypto) by
// Fuzz/run-signed-data-fuzz.sh.
//
// Every input is used as a whole JWS, as a certificate (DER, and as a file that may be PEM), and
// as a payload's JSON. Random bytes never get past the signature, so each input is also wrapped:
// signed as the payload of a JWS by a chain minted at start-up and trusted by the verifiers (so
// the payload decoding, the environment and bundle id checks and a notification's nested data
// are reached), signed as a transaction nested in a signed notification, and used as the header
// segment of a JWS. Nothing may trap; ASan and libFuzzer's limits catch overreads, leaks and
// runaway allocation. On top, the invariants `inspect` and the logs rely on: a failure is one
// non-empty line of at most 200 characters that never echoes the data (no run of 16 bytes
// copied from the input, apart from Apple's field names (taken from the payload models), this run's
// configuration, and a bundle id or environment a trusted chain signed, which is named bounded), a verification without failure has a payload, the instant checked and
// a chain of three, and data the trusted chain signed properly is never refused for its chain or
// signature unless the instant checked lies outside the chain's validity.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func signedDataFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var input = SignedDataFuzz.Input(bytes)
    SignedDataFuzz.checkJWS(&input)
    SignedDataFuzz.checkCertificate(&input)
    // Wrapped, an input that is not a JSON object fails the same way every time (payload or
    // header does not decode), after parsing the x5c certificates for the report: under ASan,
    // OpenSSL 3.0 takes about 2 ms a certificate, which would bring a run down to some 60 inputs a second.
    guard SignedDataFuzz.checkPayload(&input) else {
        SignedDataFuzz.checkHeader(&input, signed: false)
        return 0
    }
    SignedDataFuzz.checkSignedPayload(&input)
    SignedDataFuzz.checkNestedPayload(&input)
    SignedDataFuzz.checkHeader(&input, signed: true)
    return 0
}

enum SignedDataFuzz {
    /// A fixed instant, so a run does not depend on the clock (a payload without `signedDate` is
    /// checked at it).
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    /// As wide as X.509 times reach (years 1 to 9999), so that a signed payload's `signedDate` is
    /// almost always inside the chain's validity and a refused chain is a finding.
    static let validity = Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799)
    static let chain: SigningChain = {
        // Minting fails only when OpenSSL cannot generate keys: nothing can be fuzzed then.
        guard let chain = try? SigningChain.mint(notBefore: validity.lowerBound, notAfter: validity.upperBound)
        else { fatalError("cannot mint the signing chain") }
        return chain
    }()
    static let bundleID = "com.example.recon"
    /// Bundle id and environment checked, as a production run does.
    static let checking = SignedDataVerifier(
        anchors: [TrustAnchor(chain.root)], acceptedBundleIDs: [bundleID], environment: .sandbox)
    /// No application checks: a properly signed payload of another app still reaches its nested data.
    static let open = SignedDataVerifier(anchors: [TrustAnchor(chain.root)])
    /// For the input as it is: Apple's real root too (strict, as `inspect` trusts it), so the x5c
    /// chains of the seeds are checked in full.
    static let both = SignedDataVerifier(
        anchors: [.appleRootCAG3, TrustAnchor(chain.root)], acceptedBundleIDs: [bundleID], environment: .sandbox)
    /// The header segment `SigningChain.sign` writes, encoded once: encoding its three
    /// certificates for every input would cost more than the rest of a run.
    static let header: String = {
        let x5c = [chain.leaf, chain.intermediate, chain.root].map { "\"" + Data($0.der).base64EncodedString() + "\"" }
        return Base64URL.encode(Array(("{\"alg\":\"ES256\",\"x5c\":[" + x5c.joined(separator: ",") + "]}").utf8))
    }()

    /// What `chain.sign(payload:)` gives, over the header encoded once.
    static func sign(payload: [UInt8], header: String = header) -> String {
        sign(payload: Base64URL.encode(payload), header: header)
    }

    static func sign(payload: String, header: String) -> String {
        let signingInput = header + "." + payload
        return signingInput + "." + Base64URL.encode(chain.leafKey.sign(Array(signingInput.utf8)) ?? [])
    }

    /// The input, and the set of its 16-byte runs, built the first time a description is checked.
    struct Input {
        static let run = 16
        let bytes: [UInt8]
        private var runs: Set<Run>?

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        struct Run: Hashable {
            let low: UInt64
            let high: UInt64
            init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
                low = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                high = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            }
        }

        /// Whether `text` holds a run of 16 bytes that also occurs in the input.
        mutating func isEchoed(in text: String) -> Bool {
            let utf8 = Array(text.utf8)
            guard utf8.count >= Self.run, bytes.count >= Self.run else { return false }
            if runs == nil {
                var set = Set<Run>(minimumCapacity: bytes.count)
                bytes.withUnsafeBytes { raw in
                    for offset in 0...(raw.count - Self.run) { set.insert(Run(raw, at: offset)) }
                }
                runs = set
            }
            return utf8.withUnsafeBytes { raw in
                (0...(raw.count - Self.run)).contains { runs!.contains(Run(raw, at: $0)) }
            }
        }
    }

    // MARK: The input as it is

    /// (a) The input as a whole JWS, as `inspect` and a production run verify it.
    static func checkJWS(_ input: inout Input) {
        check(both.verify(input.bytes, now: now), &input)
        do {
            _ = try CompactJWS(input.bytes)
        } catch {
            checkDescription(error.description, &input)
        }
    }

    /// (b) The input as a DER certificate, and as a certificate file (DER or PEM).
    static func checkCertificate(_ input: inout Input) {
        // Two calls rather than a loop over closures: an array of typed-throws closures crashes
        // swiftc 6.3's SILGen.
        checkCertificate(&input) { bytes throws(SignedDataFailure) in try X509Certificate(der: bytes) }
        checkCertificate(&input) { bytes throws(SignedDataFailure) in try X509Certificate(file: bytes) }
    }

    static func checkCertificate(
        _ input: inout Input, _ parse: ([UInt8]) throws(SignedDataFailure) -> X509Certificate
    ) {
        do {
            let certificate = try parse(input.bytes)
            require(!certificate.subject.contains(where: \.isNewline), "certificate subject is not one line")
            _ = certificate.hasExtension(TrustChainVerifier.leafOID)
            _ = certificate.sha256
            _ = ES256Key(publicKeyOf: certificate)
        } catch {
            checkDescription(error.description, &input)
        }
    }

    /// (c) The input as a payload's JSON, decoded and rendered as `inspect` prints it. Whether it
    /// is a JSON object decides whether wrapping it is worth the signatures (see `main`).
    static func checkPayload(_ input: inout Input) -> Bool {
        let payload: SignedPayload
        do {
            payload = try SignedPayload.decode(input.bytes)
        } catch {
            checkDescription(error.description, &input)
            return false
        }
        checkInspect(payload)
        for format in SignedDataFormat.allCases {
            guard let typed = try? SignedPayload.decode(input.bytes, as: format) else {
                fatalError("a payload that decodes does not decode as \(format)")
            }
            require(typed.format == format, "a payload decoded as \(format) is another kind")
        }
        return true
    }

    static func checkInspect(_ payload: SignedPayload) {
        let json = payload.inspectObject(nested: { .string($0) }).rendered(pretty: false)
        require(
            (try? JSONSerialization.jsonObject(with: Data(json.utf8))) is [String: Any],
            "inspect JSON of a payload does not parse")
    }

    // MARK: The input wrapped in properly signed data

    /// (d) The input as the payload of a JWS the trusted chain signs; without the application
    /// checks too when only they failed, so another app's notification reaches its nested data.
    static func checkSignedPayload(_ input: inout Input) {
        let jws = Array(sign(payload: input.bytes).utf8)
        let verification = checking.verify(jws, now: now)
        check(verification, &input)
        checkProperlySigned(verification)
        guard verification.failure?.isSignatureValid == true else { return }
        let unchecked = open.verify(jws, now: now)
        check(unchecked, &input)
        checkProperlySigned(unchecked)
    }

    /// The input as a transaction, signed, nested in a notification that is signed too: the nested
    /// data is verified and decoded as the kind its field names.
    static func checkNestedPayload(_ input: inout Input) {
        let notification =
            #"{"notificationType":"ONE_TIME_CHARGE","signedDate":1700000000000,"data":{"bundleId":"\#(bundleID)","#
            + #""environment":"Sandbox","signedTransactionInfo":"\#(sign(payload: input.bytes))"}}"#
        let verification = checking.verify(Array(sign(payload: Array(notification.utf8)).utf8), now: now)
        check(verification, &input)
        checkProperlySigned(verification)
        require(verification.nested.count == 1, "the nested transaction is not verified")
        checkProperlySigned(verification.nested[0].verification)
    }

    /// The input as the (base64url-encoded) header segment of a JWS over a plain payload, signed
    /// when the header is a JSON object (else it is refused before the signature is looked at).
    static func checkHeader(_ input: inout Input, signed: Bool) {
        let payload = Base64URL.encode(Array(#"{"bundleId":"com.example.recon","signedDate":1700000000000}"#.utf8))
        let header = Base64URL.encode(input.bytes)
        let jws = signed ? sign(payload: payload, header: header) : header + "." + payload + "." + unsigned
        check(checking.verify(Array(jws.utf8), now: now), &input)
    }

    static let unsigned = Base64URL.encode([UInt8](repeating: 0, count: 64))

    /// Data the trusted chain signed is refused for its chain only when the instant checked (the
    /// payload's `signedDate`) is outside the chain's validity, and never for its signature.
    static func checkProperlySigned(_ verification: SignedDataVerification) {
        switch verification.failure {
        case .badSignature?:
            fatalError("properly signed data fails with badSignature")
        case .untrustedChain?:
            require(
                verification.checkedAt.map { !validity.contains($0) } ?? false,
                "properly signed data fails with untrustedChain inside the chain's validity")
        default:
            break
        }
    }

    // MARK: Invariants

    static func check(_ verification: SignedDataVerification, _ input: inout Input) {
        if let failure = verification.failure {
            checkDescription(failure.description, &input, naming: signedValues(failure))
        } else {
            require(verification.payload != nil, "verified data has no payload")
            require(verification.checkedAt != nil, "verified data has no checked instant")
            require(verification.chain.count == 3, "verified data has no chain of three")
        }
        if let payload = verification.payload { checkInspect(payload) }
        for (_, nested) in verification.nested { check(nested, &input) }
    }

    /// What a description may name although the input holds it too: Apple's field names, the
    /// notification body's own name, and this run's configuration (the accepted bundle id). Longest
    /// first, so that a name is blanked before a shorter one inside it.
    static let vocabulary = (appleFieldNames + ["signedPayload", bundleID]).sorted { $0.count > $1.count }

    /// Apple's field names as the payload models read them: every key `inspect` prints for a payload
    /// of each kind that has every part. Taken from the models, so a field they learn is known here
    /// without a list to keep in step.
    static let appleFieldNames: [String] = {
        let everyPart = Array(
            (#"{"data":{"signedTransactionInfo":"a","signedRenewalInfo":"a"},"summary":{},"#
                + #""externalPurchaseToken":{},"appData":{"signedAppTransactionInfo":"a"}}"#).utf8)
        var names: Set<String> = []
        for format in SignedDataFormat.allCases {
            guard let payload = try? SignedPayload.decode(everyPart, as: format) else {
                fatalError("a payload with every part does not decode as \(format)")
            }
            collectKeys(payload.inspectObject(nested: { _ in .null }), into: &names)
        }
        require(names.contains("receiptCreationDate"), "the models' field names were not found")
        return Array(names)
    }()

    static func collectKeys(_ json: InspectJSON, into names: inout Set<String>) {
        switch json {
        case .object(let members):
            for member in members {
                names.insert(member.key)
                collectKeys(member.value, into: &names)
            }
        case .array(let elements):
            for element in elements { collectKeys(element, into: &names) }
        default:
            break
        }
    }

    /// The values from the data a failure names: only a bundle id or environment that a trusted
    /// chain signed (the operator needs to see which app or environment the data is for), shown
    /// bounded and on one line.
    static func signedValues(_ failure: SignedDataFailure) -> [String] {
        switch failure {
        case .bundleNotAccepted(let bundleID, _): [SignedDataFailure.shown(bundleID, limit: 64)]
        case .wrongEnvironment(let signed, _): [SignedDataFailure.shown(signed, limit: 24)]
        case .nested(_, let box): signedValues(box.failure)
        default: []
        }
    }

    static func checkDescription(_ text: String, _ input: inout Input, naming values: [String] = []) {
        require(!text.isEmpty, "failure description is empty")
        require(!text.contains(where: \.isNewline), "failure description is not one line")
        require(text.count <= 200, "failure description is longer than 200 characters")
        let own = (values + vocabulary).reduce(text) { $0.replacingOccurrences(of: $1, with: "\u{0}") }
        require(!input.isEchoed(in: own), "failure description echoes the input: \(text)")
    }

    /// `precondition` that says which invariant broke: -O drops a precondition's message, and
    /// the crash report is all a finding leaves behind.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError(message()) }
    }
}
