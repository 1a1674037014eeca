import AppStoreReceipts
import Foundation

/// The throwaway PKI of `simulator seed --pki-dir DIR`: a chain with Apple's OIDs that signs the world's
/// StoreKit 2 rows and the Server API's answers (its P-256 leaf) and its app receipts (its RSA leaf), written where the run (`--apple-root-certificate DIR/apple-root.der`) and the server
/// can find it. Staging and tests only: a production run never trusts it.
package enum SeedSigningChain {
    /// How far the chain's validity reaches on each side of `asOf`: further back than any date of the
    /// world (a few years), so every row's `signedDate` falls inside it.
    static let margin: TimeInterval = 20 * 365.25 * 86_400

    /// How far back a world's dates reach from its `asOf` (purchases up to two years, chains and
    /// downloads before them): a reused chain must be valid over all of it.
    static let worldSpan: TimeInterval = 5 * 365.25 * 86_400

    /// Everything a seeding leaves in DIR: the chain, the leaves' keys, and the Server API key.
    package static let files =
        SigningChain.files + [ServerAPIKey.keyFile, ServerAPIKey.keyIDFile, ServerAPIKey.issuerIDFile]

    /// The receipt leaf's files, which a DIR seeded before app receipts had their own RSA leaf lacks.
    static let receiptLeafFiles = [SigningChain.receiptLeafFile, SigningChain.receiptLeafKeyFile]

    /// A DIR that cannot be reused, and the way out.
    package enum PKIError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Some of `files` are there, not all: a chain without its key, or a key without its chain.
        case incomplete(directory: String, missing: [String])
        /// Every file but the receipt leaf's: DIR was seeded before app receipts had their own RSA leaf.
        /// The leaf cannot be added, since the intermediate's key that would issue it is never kept.
        case withoutReceiptLeaf(directory: String)
        /// The files are there but do not read as a chain and a key.
        case unreadable(directory: String, reason: String)
        /// The chain there does not cover the dates of this world (seeded for a far-off `--as-of`).
        case notValidForWorld(directory: String)

        package var description: String {
            switch self {
            case .incomplete(let directory, let missing):
                "'\(directory)' holds part of a signing chain and API key (missing: \(missing.joined(separator: ", "))): "
                    + "give --new-pki to mint a new set there (a database seeded with the old one will then "
                    + "fail to verify), or another --pki-dir"
            case .withoutReceiptLeaf(let directory):
                "the signing chain in '\(directory)' predates the RSA receipt-signing leaf "
                    + "(\(receiptLeafFiles.joined(separator: ", ")) missing), and no leaf can be added to it: "
                    + "give --new-pki to mint a new set there (a database seeded with the old one will then "
                    + "fail to verify), or another --pki-dir"
            case .unreadable(let directory, let reason):
                "cannot reuse the signing chain and API key in '\(directory)' (\(reason)): "
                    + "give --new-pki to mint a new set there, or another --pki-dir"
            case .notValidForWorld(let directory):
                "the signing chain in '\(directory)' is not valid over this world's dates (another --as-of): "
                    + "give --new-pki to mint a new set there, or another --pki-dir"
            }
        }
    }

    /// The chain a seeding signs with, and whether it was already in `directory`.
    ///
    /// `directory` holding every one of `files` is reused as it is (so a second seed into one DIR keeps
    /// the first database's signed rows valid under `DIR/apple-root.der` and its API key working); holding
    /// none of them (or with `fresh`, `--new-pki`), a new set is minted and written there; holding some
    /// is an error, since reusing or replacing half a set would strand a database seeded with it.
    /// A DIR seeded before the RSA receipt leaf existed is refused with the `--new-pki` advice too
    /// (`withoutReceiptLeaf`): the intermediate's key is not kept, so no leaf can be added to its chain.
    package static func prepare(in directory: URL, asOfMs: Int64, fresh: Bool) throws -> (
        chain: SigningChain, reused: Bool
    ) {
        let present = files.filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
        if fresh || present.isEmpty { return (try create(in: directory, asOfMs: asOfMs), false) }
        guard present.count == files.count else {
            if Set(files).subtracting(present) == Set(receiptLeafFiles) {
                throw PKIError.withoutReceiptLeaf(directory: directory.path)
            }
            throw PKIError.incomplete(directory: directory.path, missing: files.filter { !present.contains($0) })
        }
        let chain: SigningChain
        do {
            chain = try SigningChain.read(from: directory)
            _ = try ServerAPIKey.read(from: directory)
        } catch {
            throw PKIError.unreadable(directory: directory.path, reason: "\(error)")
        }
        let asOf = Date(timeIntervalSince1970: Double(asOfMs) / 1000)
        let certificates = [chain.root, chain.intermediate, chain.leaf, chain.receiptLeaf]
        guard certificates.allSatisfy({ $0.isValid(at: asOf) && $0.isValid(at: asOf.addingTimeInterval(-worldSpan)) })
        else { throw PKIError.notValidForWorld(directory: directory.path) }
        return (chain, true)
    }

    /// Mints a chain valid around `asOfMs` and writes it into `directory`, created if missing:
    /// `apple-root.der`, `apple-intermediate.der`, `apple-leaf.der` and `apple-leaf-key.p8` (mode 0600),
    /// `apple-receipt-leaf.der` and `apple-receipt-leaf-key.p8` (mode 0600),
    /// with a new App Store Server API key beside it (`ServerAPIKey`: `api-key.p8`, `api-key-id`,
    /// `api-issuer-id`) for the run's Server API backend and `simulator serve`.
    package static func create(in directory: URL, asOfMs: Int64) throws -> SigningChain {
        let asOf = Date(timeIntervalSince1970: Double(asOfMs) / 1000)
        let chain = try SigningChain.mint(
            notBefore: asOf.addingTimeInterval(-margin), notAfter: asOf.addingTimeInterval(margin))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try chain.write(to: directory)
        try ServerAPIKey.generate().write(to: directory)
        return chain
    }
}
