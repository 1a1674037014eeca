import Foundation
import TestSupport
import Testing

/// `receipt-recon demo`: the whole job end to end on its own throwaway cluster and the simulator.
@Suite(.serialized) struct DemoCommandTests {
    /// With each backend: the simulator answers verifyReceipt and the App Store Server API alike.
    @Test(arguments: ["verify-receipt", "server-api"])
    func theDemoRunsEndToEndAndLeavesNoClusterBehind(backend: String) throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        // This test process's own cluster must exist before the snapshot, so only the demo's can differ.
        try TestDatabase.with(migrated: false) { _ in }
        let clustersBefore = try Self.clusterDirectories()
        let result = try ReceiptReconBinary.run(
            ["demo", "--users", "1000", "--output-dir", output.path, "--backend", backend], timeout: 300)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("match the simulator's expectation exactly"))
        #expect(result.stdout.contains("StoreKit 2 signed transactions: verified locally"))
        #expect(result.stdout.contains("transaction_history") == (backend == "server-api"))
        #expect(result.stdout.contains("verify-user"))
        #expect(result.stdout.contains("Open next:"))
        for file in [
            "transactions.csv", "corrections.csv", "flags.csv", "transactions.csv.manifest.json",
            "corrections.csv.manifest.json", "flags.csv.manifest.json", "report.html",
        ] {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(file).path), "\(file) missing")
        }
        let summary = try JSONSerialization.jsonObject(
            with: Data(contentsOf: output.appendingPathComponent("run-summary.json")))
        #expect((summary as? [String: Any])?["status"] != nil)
        // Its throwaway cluster is gone once it exits.
        #expect(try Self.clusterDirectories().subtracting(clustersBefore).isEmpty)
    }

    static func clusterDirectories() throws -> Set<String> {
        let temporary = NSTemporaryDirectory()
        return Set(try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("recon-pg-") })
    }
}
