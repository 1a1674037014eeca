import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// A certificate is valid through its `notAfter` second, as Apple's verifiers decide (RFC 5280: both
/// ends included), for Apple's signed data and for receipts alike, through `receipt-recon inspect`.
@Suite struct CertificateLastSecondTests {
    static let notBefore = Date(timeIntervalSince1970: 1_780_000_000)
    static let notAfter = Date(timeIntervalSince1970: 1_790_000_000)

    /// The instants around both ends of the leaf's validity, and whether a signature made then stands.
    static let instants: [(offset: String, instant: Date, valid: Bool)] = [
        ("notBefore-1", notBefore - 1, false), ("notBefore", notBefore, true), ("notAfter-1", notAfter - 1, true),
        ("notAfter", notAfter, true), ("notAfter+1ms", notAfter + 0.001, false), ("notAfter+1", notAfter + 1, false),
    ]

    /// A chain whose leaves are valid from `notBefore` through `notAfter`, written to a directory.
    struct Minted {
        let directory: URL
        let chain: SigningChain
        var rootFile: String { directory.appendingPathComponent(SigningChain.rootFile).path }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("recon-last-second-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            chain = try SigningChain.mint(
                notBefore: notBefore - 86_400, notAfter: notAfter + 86_400, leafValidity: notBefore...notAfter)
            try chain.write(to: directory)
        }

        func file(_ name: String, _ text: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func signedDataIsValidThroughTheLeafsLastSecond() throws {
        let minted = try Minted()
        defer { minted.remove() }
        for (offset, instant, valid) in Self.instants {
            let milliseconds = Int64((instant.timeIntervalSince1970 * 1000).rounded())
            let payload =
                #"{"transactionId":"2000000001","originalTransactionId":"2000000001","bundleId":"com.example","#
                + #""productId":"monthly","environment":"Production","signedDate":\#(milliseconds)}"#
            let file = try minted.file("\(offset).jws", minted.chain.sign(payload: Array(payload.utf8)))
            let result = try ReceiptReconBinary.run(["inspect", file, "--apple-root-certificate", minted.rootFile])
            #expect(result.status == (valid ? 0 : 65), "\(offset): \(result.stderr)")
            let printed = try Self.object(result.stdout)
            #expect(printed["verification"] as? String == (valid ? "valid" : "invalid"), "\(offset)")
            if !valid {
                let reason = printed["reason"] as? String ?? ""
                let expected = instant < Self.notBefore ? "not yet valid" : "expired"
                #expect(reason.contains(expected), "\(offset): \(reason)")
            }
        }
    }

    @Test func aReceiptIsValidThroughItsSignersLastSecond() throws {
        let minted = try Minted()
        defer { minted.remove() }
        // Whole seconds only: a receipt's creation date has no milliseconds.
        let wholeSeconds = Self.instants.filter {
            $0.instant.timeIntervalSince1970.rounded() == $0.instant.timeIntervalSince1970
        }
        for (offset, instant, valid) in wholeSeconds {
            let receipt = LocalReceipt(
                environment: "Production", bundleID: "com.example", applicationVersion: "3", creationDate: instant,
                inApp: [])
            let text = try ReceiptSigner(chain: minted.chain).base64(receipt)
            let file = try minted.file("\(offset).b64", text)
            let result = try ReceiptReconBinary.run(["inspect", file, "--apple-root-certificate", minted.rootFile])
            #expect(result.status == (valid ? 0 : 65), "\(offset): \(result.stderr)")
            let printed = try Self.object(result.stdout)
            #expect(printed["signature"] as? String == (valid ? "verified" : "failed"), "\(offset): \(printed)")
        }
    }
}
