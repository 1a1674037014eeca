import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// `receipt-recon inspect` on Apple's signed data, through the built binary: every entry of the
/// server-api corpus reaches its verdict and exit code, payload fields print under Apple's names,
/// and the bundle and environment checks report genuine data for somewhere else as such.
@Suite struct InspectSignedDataTests {
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func corpusPath(_ relative: String) -> String {
        Conformance.directory!.appendingPathComponent("server-api/" + relative).path
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func everyCorpusEntryReachesItsVerdictThroughInspect() throws {
        let expected = try #require(
            try JSONSerialization.jsonObject(with: Conformance.file("server-api/EXPECTED.json")) as? [String: Any])
        let entries = try #require(expected["signed"] as? [String: [String: Any]])
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let file = String(name.split(separator: " ").first ?? "")
            let root = try #require(entry["root"] as? String)
            let result = try ReceiptReconBinary.run(
                ["inspect", Self.corpusPath(file), "--apple-root-certificate", Self.corpusPath(root)])
            let valid = entry["verdict"] as? String == "valid"
            #expect(result.status == (valid ? 0 : 65), "\(name): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == (valid ? 0 : 1), "\(name): \(result.stderr)")
            guard !result.stdout.isEmpty else {
                // Unreadable signed data gets the one-line reason only.
                #expect(!valid, "\(name) printed nothing")
                continue
            }
            let printed = try Self.object(result.stdout)
            #expect(printed["verification"] as? String == (valid ? "valid" : "invalid"), "\(name)")
            #expect((printed["reason"] is NSNull) == valid, "\(name)")
            let payload = try #require(printed["payload"] as? [String: Any], "\(name)")
            for (key, value) in entry["payload"] as? [String: Any] ?? [:] {
                #expect(Self.printedValue(payload[key]) == Self.expectedValue(key, value), "\(name): \(key)")
            }
            if valid { #expect((printed["chain"] as? [Any])?.count == 3, "\(name)") }
        }
    }

    /// EXPECTED.json has Apple's raw values; `inspect` prints dates as ISO 8601 and prices as decimals.
    static func expectedValue(_ key: String, _ value: Any) -> String {
        if let number = value as? NSNumber, key.hasSuffix("Date") {
            let formatter = ISO8601DateFormatter()
            if number.int64Value % 1000 != 0 { formatter.formatOptions.insert(.withFractionalSeconds) }
            return formatter.string(from: Date(timeIntervalSince1970: number.doubleValue / 1000))
        }
        if let number = value as? NSNumber, key == "price" || key == "renewalPrice" {
            return "\(Decimal(number.int64Value) / 1000)"
        }
        return printedValue(value)
    }

    static func printedValue(_ value: Any?) -> String {
        switch value {
        case let list as [Any]: list.map { printedValue($0) }.joined(separator: ",")
        case let number as NSNumber: "\(number)"
        case let text as String: text
        default: "null"
        }
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func genuineDataForAnotherAppOrEnvironmentIsReportedAsSuch() throws {
        let root = Self.corpusPath("certs/testCA.der")
        let wrongBundle = try ReceiptReconBinary.run(
            [
                "inspect", Self.corpusPath("signed/library/wrongBundleId"), "--apple-root-certificate", root,
                "--bundle-id", "com.example",
            ])
        #expect(wrongBundle.status == 65)
        let bundleReason = try Self.object(wrongBundle.stdout)["reason"] as? String
        #expect(bundleReason?.contains("bundle id com.example.wrong is not accepted") == true)

        let sandbox = try ReceiptReconBinary.run(
            ["inspect", Self.corpusPath("signed/library/testNotification"), "--apple-root-certificate", root],
            environment: ["RECON_ENVIRONMENT": "production"])
        #expect(sandbox.status == 65)
        #expect(
            (try Self.object(sandbox.stdout)["reason"] as? String)
                == "signed for Sandbox; this database serves production")
        let sandboxOK = try ReceiptReconBinary.run(
            [
                "inspect", Self.corpusPath("signed/library/testNotification"), "--apple-root-certificate", root,
                "--environment", "sandbox",
            ])
        #expect(sandboxOK.status == 0, "\(sandboxOK.stderr)")
    }

    /// Without a replacement root, data signed under anything but Apple Root CA - G3 is invalid.
    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func builtInRootIsApples() throws {
        let result = try ReceiptReconBinary.run(["inspect", Self.corpusPath("signed/generated/valid-transaction.jws")])
        #expect(result.status == 65)
        #expect(
            try Self.object(result.stdout)["reason"] as? String
                == "certificate chain rejected: does not chain to the configured root (Apple Root CA - G3); leaf, "
                + "intermediate and signature check out")
    }

    /// A notification's nested signed data is verified and printed in place of its JWS text.
    @Test func notificationNestedDataIsPrintedInPlace() throws {
        let now = Date()
        let chain = try SigningChain.mint(notBefore: now - 86_400, notAfter: now + 86_400)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-inspect-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try chain.write(to: directory)
        let signedDate = Int64(now.timeIntervalSince1970 * 1000)
        let transaction = chain.sign(
            payload: Array(
                "{\"transactionId\":\"7\",\"bundleId\":\"com.example\",\"price\":1990,\"currency\":\"EUR\",\"signedDate\":\(signedDate)}"
                    .utf8))
        let notification = chain.sign(
            payload: Array(
                """
                {"notificationType":"REFUND","signedDate":\(signedDate),"data":{"bundleId":"com.example",\
                "environment":"Production","signedTransactionInfo":"\(transaction)"}}
                """.utf8))
        let file = directory.appendingPathComponent("notification.jws")
        try Data(notification.utf8).write(to: file)
        let result = try ReceiptReconBinary.run(
            [
                "inspect", file.path, "--apple-root-certificate",
                directory.appendingPathComponent(SigningChain.rootFile).path,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let printed = try Self.object(result.stdout)
        #expect(printed["format"] as? String == "signed_notification")
        let data = try #require((printed["payload"] as? [String: Any])?["data"] as? [String: Any])
        let nested = try #require(data["signedTransactionInfo"] as? [String: Any])
        #expect(nested["format"] as? String == "signed_transaction")
        #expect(nested["verification"] as? String == "valid")
        let nestedPayload = try #require(nested["payload"] as? [String: Any])
        #expect(nestedPayload["price"] as? Double == 1.99)
        #expect(nestedPayload["currency"] as? String == "EUR")
    }

    /// Hostile text that looks like a JWS exits 65 at once with one short line, never echoing it.
    @Test func hostileSignedDataExits65WithOneLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-hostile-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretLooking = "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJTRUNSRVRTRUNSRVQiXX0"
        let cases = [
            secretLooking + ".eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.AAAA",
            "eyJ" + String(repeating: "\u{FF}", count: 50) + "..", "eyJhbGciOiJFUzI1NiJ9.%%%.AAAA",
            "eyJ" + String(repeating: "A", count: 400_000) + ".e30.AAAA",
        ]
        for (index, text) in cases.enumerated() {
            let file = directory.appendingPathComponent("\(index).jws")
            try Data(text.utf8).write(to: file)
            let result = try ReceiptReconBinary.run(["inspect", file.path])
            #expect(result.status == 65, "case \(index): \(result.output)")
            #expect(result.stdout.isEmpty || (try? Self.object(result.stdout)) != nil)
            #expect(result.stderr.split(separator: "\n").count == 1, "case \(index): \(result.stderr)")
            #expect(!result.stderr.contains("SECRETSECRET") && result.stderr.count < 300, "case \(index)")
        }
    }
}
