import AppStoreReceipts
import Foundation
import Glibc
import Postgres
import TestSupport
import Testing

/// `simulator seed --pki-dir DIR --backend server-api` and `simulator serve --pki-dir DIR` through the
/// built binary: the API key files, the expected file's backend, and a history answer for a seeded row.
@Suite struct SimulatorServerAPICommandTests {
    static let world = ["--users", "150", "--seed", "4", "--as-of", "2026-11-22T03:00:00Z"]

    @Test func seedWritesTheAPIKeyAndServeAnswersTheServerAPI() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let jws = try TestDatabase.with(migrated: false) { database -> String in
            let result = try ReceiptReconBinary.run(
                [
                    "simulator", "seed", "--database-url", database.conninfo, "--pki-dir", directory.path,
                    "--backend", "server-api", "--expected", file.path,
                ] + Self.world)
            #expect(result.status == 0, "\(result.output)")
            let rows = try database.connect().query("SELECT receipt_data FROM receipts WHERE receipt_data LIKE 'eyJ%'")
            return try #require(try rows.first?.decode(at: 0, as: String.self))
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(json["backend"] as? String == "server-api")
        #expect((json["run"] as? String)?.contains("--backend server-api") == true)

        let keyPath = directory.appendingPathComponent("api-key.p8").path
        let mode = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let keyID = try String(contentsOf: directory.appendingPathComponent("api-key-id"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let issuer = try String(contentsOf: directory.appendingPathComponent("api-issuer-id"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(keyID.count == 10 && keyID.allSatisfy { $0.isUppercase || $0.isNumber })
        #expect(UUID(uuidString: issuer) != nil)
        let key = try #require(ES256Key.privateKey(pem: Array(try Data(contentsOf: URL(fileURLWithPath: keyPath)))))

        let server = try BackgroundProcess(
            ReceiptReconBinary.url.path,
            ["simulator", "serve", "--port", "0", "--pki-dir", directory.path] + Self.world)
        defer { server.kill() }
        let line = try server.firstLine(within: .seconds(60))
        #expect(line.contains("App Store Server API: http://127.0.0.1:"), "\(line)")
        let port = try #require(line.firstMatch(of: /127\.0\.0\.1:(\d+)/).flatMap { UInt16($0.1) })

        let payload = try #require(
            Self.base64URL(decoding: String(jws.split(separator: ".")[1])).flatMap {
                try JSONSerialization.jsonObject(with: $0) as? [String: Any]
            })
        let id = try #require(payload["transactionId"] as? String)
        let environment = payload["environment"] as? String == "Sandbox" ? "sandbox" : "production"
        let now = Int(Date().timeIntervalSince1970)
        let header = "{\"alg\":\"ES256\",\"kid\":\"\(keyID)\",\"typ\":\"JWT\"}"
        let claims =
            "{\"iss\":\"\(issuer)\",\"iat\":\(now),\"exp\":\(now + 300),\"aud\":\"appstoreconnect-v1\","
            + "\"bid\":\"com.example.recon\"}"
        let input = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        let token = input + "." + Self.base64URL(Data(try #require(key.sign(Array(input.utf8)))))

        let answer = try Self.get(port: port, path: "/\(environment)/inApps/v2/history/\(id)", token: token)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        #expect(answer.contains("\"signedTransactions\":[\"eyJ"))
        let refused = try Self.get(port: port, path: "/\(environment)/inApps/v2/history/\(id)", token: input + ".AAAA")
        #expect(refused.hasPrefix("HTTP/1.1 401"))

        server.signal(SIGTERM)
        #expect(try server.exitStatus(within: .seconds(30)) == 0)
        #expect(server.stderr.contains("and 2 Server API requests"), "\(server.stderr)")
        #expect(!server.stderr.contains(token) && !server.stdout.contains(token))
    }

    /// A second `seed --pki-dir DIR` into the same DIR (another database, another world) reuses the chain
    /// and key: the first database's signed rows still verify against `DIR/apple-root.der`. Half a set is
    /// refused with the way out; `--new-pki` mints afresh.
    @Test func aSecondSeedIntoOneDirectoryKeepsTheFirstDatabasesRowsValid() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = [
            "apple-root.der", "apple-intermediate.der", "apple-leaf.der", "apple-leaf-key.p8", "api-key.p8",
            "api-key-id", "api-issuer-id",
        ]
        func contents() throws -> [Data] {
            try files.map { try Data(contentsOf: directory.appendingPathComponent($0)) }
        }
        func verdicts(_ rows: [String]) throws -> [Bool] {
            let root = try X509Certificate(
                der: Array(try Data(contentsOf: directory.appendingPathComponent("apple-root.der"))))
            let verifier = SignedDataVerifier(
                anchors: [TrustAnchor(root)], acceptedBundleIDs: ["com.example.recon"], environment: .production)
            return rows.map { verifier.verify(Array($0.utf8)).failure == nil }
        }

        try TestDatabase.with(migrated: false) { first in
            let seeded = try ReceiptReconBinary.run(
                ["simulator", "seed", "--database-url", first.conninfo, "--pki-dir", directory.path] + Self.world)
            #expect(seeded.status == 0, "\(seeded.output)")
            #expect(seeded.stdout.contains("minted a new signing chain and API key"))
            let written = try contents()
            let rows = try first.connect().query("SELECT receipt_data FROM receipts WHERE receipt_data LIKE 'eyJ%'")
                .map { try $0.decode(at: 0, as: String.self) }
            let before = try verdicts(rows)
            #expect(before.contains(true))

            try TestDatabase.with(migrated: false) { second in
                let again = try ReceiptReconBinary.run(
                    [
                        "simulator", "seed", "--database-url", second.conninfo, "--pki-dir", directory.path,
                        "--users", "120", "--seed", "9", "--as-of", "2026-12-01T00:00:00Z",
                    ])
                #expect(again.status == 0, "\(again.output)")
                #expect(again.stdout.contains("reused the signing chain and API key"))
                #expect(try contents() == written)
                #expect(try verdicts(rows) == before)
            }

            // Half a set: refused before anything is seeded, naming the file and the way out.
            try FileManager.default.removeItem(at: directory.appendingPathComponent("api-issuer-id"))
            try TestDatabase.with(migrated: false) { third in
                let refused = try ReceiptReconBinary.run(
                    ["simulator", "seed", "--database-url", third.conninfo, "--pki-dir", directory.path] + Self.world)
                #expect(refused.status == 78, "\(refused.output)")
                #expect(refused.stderr.contains("api-issuer-id") && refused.stderr.contains("--new-pki"))
                let count = try third.connect().query("SELECT count(*) FROM pg_tables WHERE tablename = 'receipts'")
                #expect(try count[0].decode(at: 0, as: Int.self) == 0)

                let minted = try ReceiptReconBinary.run(
                    ["simulator", "seed", "--database-url", third.conninfo, "--pki-dir", directory.path, "--new-pki"]
                        + Self.world)
                #expect(minted.status == 0, "\(minted.output)")
                #expect(try contents()[0] != written[0])
                #expect(try verdicts(rows).allSatisfy { !$0 }, "the old rows fail under the new root")
            }
        }
        let usage = try ReceiptReconBinary.run(["simulator", "seed", "--new-pki"] + Self.world)
        #expect(usage.status == 64 && usage.stderr.contains("--new-pki needs --pki-dir"), "\(usage.output)")
        // The simulator's API key is the app's: a Server API run must take it as its default bid.
        let foreign = try ReceiptReconBinary.run(
            ["simulator", "seed", "--backend", "server-api", "--pki-dir", directory.path, "--no-bundle-check"]
                + Self.world)
        #expect(foreign.status == 64 && foreign.stderr.contains("default bid"), "\(foreign.output)")
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URL(decoding text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// One GET with `Connection: close` on a raw socket; the whole response as text.
    static func get(port: UInt16, path: String, token: String) throws -> String {
        let fd: Int32
        do {
            fd = try LoopbackSocket.connect(port: port, receiveTimeout: .seconds(30))
        } catch {
            throw ServeFailure(detail: "connect: \(error.code.rawValue)")
        }
        defer { close(fd) }
        let request = Array(
            "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n"
                .utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            throw ServeFailure(detail: "send: \(errno)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        return String(decoding: response, as: UTF8.self)
    }
}
