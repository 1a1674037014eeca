import AppStoreReceipts
import Foundation

/// The throwaway PKI of `simulator seed --pki-dir DIR`: a chain with Apple's OIDs that signs the world's
/// StoreKit 2 rows and the Server API's answers, written where the run (`--apple-root-certificate DIR/apple-root.der`) and the server
/// can find it. Staging and tests only: a production run never trusts it.
package enum SeedSigningChain {
    /// How far the chain's validity reaches on each side of `asOf`: further back than any date of the
    /// world (a few years), so every row's `signedDate` falls inside it.
    static let margin: TimeInterval = 20 * 365.25 * 86_400

    /// Mints a chain valid around `asOfMs` and writes it into `directory`, created if missing:
    /// `apple-root.der`, `apple-intermediate.der`, `apple-leaf.der` and `apple-leaf-key.p8` (mode 0600),
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
