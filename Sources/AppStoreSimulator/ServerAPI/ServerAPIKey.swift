import AppStoreReceipts
import Foundation

/// The App Store Connect API key of `simulator seed --pki-dir DIR`: what a run signs its Server API
/// tokens with, and what `simulator serve` checks them against (CONTRACT §9).
///
/// Three files beside the signing chain: `api-key.p8` (PKCS#8 PEM of a P-256 key, mode 0600, like the
/// `.p8` App Store Connect hands out), `api-key-id` (10 uppercase alphanumerics, the JWT header's `kid`)
/// and `api-issuer-id` (a UUID, the `iss` claim). Random per seeding, like the chain: nothing about a
/// world depends on them. Staging and tests only.
package struct ServerAPIKey: Sendable {
    package let key: ES256Key
    package let keyID: String
    package let issuerID: String

    /// A key that cannot be made or read.
    package struct KeyError: Error, CustomStringConvertible {
        package let description: String
    }

    package static let keyFile = "api-key.p8"
    package static let keyIDFile = "api-key-id"
    package static let issuerIDFile = "api-issuer-id"

    package init(key: ES256Key, keyID: String, issuerID: String) {
        self.key = key
        self.keyID = keyID
        self.issuerID = issuerID
    }

    /// A new random key, with a random key id and issuer id.
    package static func generate() throws -> ServerAPIKey {
        guard let key = ES256Key.generate() else {
            throw KeyError(description: "cannot generate a P-256 API key")
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        let keyID = String((0..<10).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
        return ServerAPIKey(key: key, keyID: keyID, issuerID: UUID().uuidString.lowercased())
    }

    /// Writes the three files into `directory`, which must exist; the key readable by its owner only.
    package func write(to directory: URL) throws {
        let files: [(String, [UInt8], Int)] = [
            (Self.keyFile, key.pkcs8PEM ?? [], 0o600),
            (Self.keyIDFile, Array((keyID + "\n").utf8), 0o644),
            (Self.issuerIDFile, Array((issuerID + "\n").utf8), 0o644),
        ]
        for (name, bytes, mode) in files {
            let url = directory.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: url)
            guard
                FileManager.default.createFile(
                    atPath: url.path, contents: Data(bytes), attributes: [.posixPermissions: mode])
            else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        }
    }

    /// Whether `directory` holds a key `write(to:)` left there.
    package static func exists(in directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(keyFile).path)
    }

    /// The key `write(to:)` left in `directory`.
    package static func read(from directory: URL) throws -> ServerAPIKey {
        func text(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let pem = Array(try Data(contentsOf: directory.appendingPathComponent(keyFile)))
        guard let key = ES256Key.privateKey(pem: pem) else {
            throw KeyError(description: "\(keyFile) is not a P-256 private key")
        }
        let keyID = try text(keyIDFile)
        let issuerID = try text(issuerIDFile)
        guard !keyID.isEmpty, !issuerID.isEmpty else {
            throw KeyError(description: "\(keyIDFile) or \(issuerIDFile) is empty")
        }
        return ServerAPIKey(key: key, keyID: keyID, issuerID: issuerID)
    }
}
