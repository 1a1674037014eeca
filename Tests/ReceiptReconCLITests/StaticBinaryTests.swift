import AppStoreSimulator
import Foundation
import Postgres
import TestSupport
import Testing

/// The release binary built with the documented command (`.ci/host-check` builds it and sets
/// RECON_STATIC_BINARY) runs on a deploy host without the Swift toolchain: each check runs it with the
/// toolchain's directory hidden (`ToolchainFreeHost`), and the same sandbox stops the toolchain-linked
/// debug build, so a binary that needs the toolchain fails here.
@Suite struct StaticBinaryTests {
    static let staticBinary: String? = {
        let path = ProcessInfo.processInfo.environment["RECON_STATIC_BINARY"] ?? ""
        return path.isEmpty ? nil : URL(fileURLWithPath: path).standardizedFileURL.path
    }()
    static let built = Testing.ConditionTrait.enabled(
        if: staticBinary != nil, "RECON_STATIC_BINARY not set: .ci/host-check builds the static binary and runs these")

    static func binary() throws -> String {
        let path = try #require(staticBinary)
        try #require(
            FileManager.default.isExecutableFile(atPath: path), "RECON_STATIC_BINARY: no executable at \(path)")
        return path
    }

    /// The control: the sandbox the other checks use does stop a binary that needs the toolchain. (Behind
    /// the same switch as the rest, so that a plain `swift test` never needs the privilege to unshare.)
    @Test(built) func theToolchainLinkedBuildDoesNotStartWhereTheToolchainIsHidden() throws {
        let host = try ToolchainFreeHost()
        let result = try host.run(ReceiptReconBinary.url.path, ["--version"])
        #expect(result.status == 127, "\(result.output)")
        // The loader names the first library it missed: one of the toolchain's runtime libraries.
        let missing = try #require(
            result.stderr.components(separatedBy: "error while loading shared libraries: ").dropFirst().first?
                .split(separator: ":").first.map(String.init),
            "\(result.stderr)")
        let runtimeDirectory = URL(fileURLWithPath: host.runtimeLibrary).deletingLastPathComponent()
        #expect(
            FileManager.default.fileExists(atPath: runtimeDirectory.appendingPathComponent(missing).path), "\(missing)")
    }

    @Test(built) func versionPrintsTheSameAsTheDebugBuild() throws {
        let result = try ToolchainFreeHost().run(Self.binary(), ["--version"])
        #expect(result.status == 0, "\(result.output)")
        let debug = try ReceiptReconBinary.run(["--version"])
        #expect(result.stdout == debug.stdout)
    }

    /// Everything the binary links against comes from the README's deploy-host packages or from what
    /// every Debian 12 system (the `debian:12-slim` image included) already holds; hiding the toolchain
    /// alone would not notice a library this machine happens to have, such as libxml2.
    @Test(built) func itLinksOnlyLibrariesOfTheDeployHostPackages() throws {
        let binary = try Self.binary()
        let dynamic = try ChildProcess.run("/usr/bin/env", ["readelf", "-d", binary], timeout: 60)
        try #require(dynamic.status == 0, "readelf: \(dynamic.stderrText)")
        let entries = dynamic.stdoutText.split(separator: "\n")
        let needed = entries.filter { $0.contains("(NEEDED)") }.compactMap(Self.bracketed)
        let searchPaths = entries.filter { $0.contains("(RUNPATH)") || $0.contains("(RPATH)") }.compactMap(
            Self.bracketed)
        #expect(!needed.isEmpty)
        let toolchain = try ToolchainFreeHost().hiddenDirectory
        for path in searchPaths.flatMap({ $0.split(separator: ":") }) {
            #expect(!path.hasPrefix(toolchain), "the binary searches the toolchain for libraries: \(path)")
        }

        let resolved = try ChildProcess.run("/usr/bin/env", ["ldd", binary], timeout: 60).stdoutText
        let allowed = try Set(DeployDocuments.deployHostPackages() + Self.debianBase)
        for library in needed {
            let owners = try Self.packagesOwning(library, lddOutput: resolved)
            #expect(
                !owners.isDisjoint(with: allowed), "\(library) comes from \(owners.sorted()), not a deploy-host package"
            )
        }
    }

    @Test(built, .enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func inspectDecodesTheConformanceReceiptsAsTheDebugBuildDoes() throws {
        let binary = try Self.binary()
        let host = try ToolchainFreeHost()
        let expected =
            try JSONSerialization.jsonObject(with: Conformance.file("receipts/EXPECTED.json")) as? [String: Any]
        let receipts = try #require(expected).compactMapValues { $0 as? [String: Any] }
        #expect(!receipts.isEmpty)
        for (name, facts) in receipts {
            let path = Conformance.directory!.appendingPathComponent("receipts/\(name)").path
            let result = try host.run(binary, ["inspect", path])
            #expect(result.status == 0, "\(name): \(result.output)")
            let bundleID = try #require(facts["bundle_id"] as? String)
            let inspected = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(inspected?["bundle_id"] as? String == bundleID, "\(name)")
            #expect(result.stdout == (try ReceiptReconBinary.run(["inspect", path])).stdout, "\(name)")
        }
    }

    @Test(built) func aRunAgainstTheSimulatorAppliesTheWorldsCorrections() throws {
        let binary = try Self.binary()
        let asOf = "2026-11-01T00:00:00Z"
        // 300 users: every world holds one user of each rare drift, which in a much smaller world would
        // (rightly) trip the revoke breaker.
        let world = SimulatedWorld(users: 300, seed: 11, asOf: ISO8601DateFormatter().date(from: asOf)!)
        let simulator = AppStoreSimulator(world: world)
        try simulator.start(port: 0)
        defer { simulator.stop() }
        try TestDatabase.with { database in
            let expected = try WorldSeeder.seed(world, into: database.connect()).expected
            let result = try ToolchainFreeHost().run(
                binary,
                ["run", "--older-than", "0", "--as-of", asOf, "--rate", "1000", "--concurrency", "8", "--json"],
                environment: [
                    "DATABASE_URL": database.conninfo,
                    "APPLE_VERIFY_URL_PRODUCTION": simulator.productionURL.absoluteString,
                    "APPLE_VERIFY_URL_SANDBOX": simulator.sandboxURL.absoluteString,
                    "APPLE_BUNDLE_IDS": WorldCatalog.appBundleID,
                ])
            // Every seeded world holds receipts Apple cannot settle: a completed run with some unverified, exit 1.
            let unverified = expected.counts.unverifiedReceipts
            #expect(result.status == (unverified > 0 ? 1 : 0), "\(result.output)")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.output)")
            #expect(summary["status"] as? String == (unverified > 0 ? "partial" : "completed"))
            #expect(summary["exitCode"] as? Int == Int(result.status))
            #expect(summary["receiptsProcessed"] as? Int == expected.counts.receipts)
            #expect((summary["outcomes"] as? [String: Int])?["unverified"] == unverified)
            #expect(summary["dryRun"] as? Bool == false)
            let corrections = (summary["corrections"] as? [String: [String: Int]] ?? [:]).values
                .flatMap(\.values).reduce(0, +)
            #expect(corrections == expected.corrections.count)

            let applied: [String] = try database.connect().query(
                "SELECT user_id || ' ' || entitlement || ' ' || action AS c FROM recon_corrections WHERE applied"
            ).map { try $0.decode("c") }
            #expect(Set(applied) == Set(expected.corrections.map { "\($0.userID) \($0.entitlement) \($0.action)" }))
        }
    }

    /// What every Debian 12 system holds before anything is installed (glibc, the GCC runtime libraries,
    /// zlib; all in `debian:12-slim`), beside the README's deploy-host packages.
    static let debianBase = ["libc6", "libgcc-s1", "libstdc++6", "zlib1g"]

    /// `Shared library: [libpq.so.5]` → `libpq.so.5`.
    static func bracketed(_ line: Substring) -> String? {
        guard let open = line.lastIndex(of: "["), let close = line.lastIndex(of: "]"), open < close else { return nil }
        return String(line[line.index(after: open)..<close])
    }

    /// The Debian packages owning `library` where the dynamic loader finds it (per `ldd`). dpkg records a
    /// file under /lib or /usr/lib as its package shipped it, so both spellings are asked.
    static func packagesOwning(_ library: String, lddOutput: String) throws -> Set<String> {
        // `libpq.so.5 => /lib/x86_64-linux-gnu/libpq.so.5 (0x…)`, or for the loader itself
        // `/lib64/ld-linux-x86-64.so.2 (0x…)`.
        let words = lddOutput.split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        let path = try #require(
            words.lazy.compactMap { line -> String? in
                if line.count >= 3, line[0] == library, line[1] == "=>" { return line[2] }
                if let first = line.first, first.hasPrefix("/"), first.hasSuffix("/" + library) { return first }
                return nil
            }.first, "ldd does not resolve \(library)")
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var candidates = [path, real]
        for candidate in [path, real] {
            candidates.append(candidate.hasPrefix("/usr/") ? String(candidate.dropFirst(4)) : "/usr" + candidate)
        }
        for candidate in candidates {
            let query = try ChildProcess.run("/usr/bin/env", ["dpkg", "-S", candidate], timeout: 60)
            guard query.status == 0,
                let owners = query.stdoutText.split(separator: "\n").first?.components(separatedBy: ": ").first
            else {
                continue
            }
            return Set(owners.components(separatedBy: ", ").map { $0.components(separatedBy: ":").first ?? $0 })
        }
        return []
    }
}
