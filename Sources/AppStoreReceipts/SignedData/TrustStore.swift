import CLibCrypto
import Foundation

/// An `X509_STORE` holding some trust anchors, verified with or without `X509_STRICT`.
///
/// Unchecked `Sendable`: after `init` the store is only read, and OpenSSL locks its lookups. Used by
/// `TrustChainVerifier` only.
final class TrustStore: @unchecked Sendable {
    private let store: OpaquePointer
    private let anchors: [TrustAnchor]
    private let strict: Bool

    init(_ anchors: [TrustAnchor], strict: Bool) {
        guard let store = X509_STORE_new() else { fatalError("X509_STORE_new: out of memory") }
        for anchor in anchors { X509_STORE_add_cert(store, anchor.certificate.pointer) }
        OpenSSLError.clear()
        self.store = store
        self.anchors = anchors
        self.strict = strict
    }

    deinit { X509_STORE_free(store) }

    enum Outcome {
        case success(X509Certificate)
        case failure(Int32)
    }

    /// The anchor `leaf` and `intermediate` chain to at `instant`, or OpenSSL's error code (-1: a
    /// chain other than leaf → intermediate → anchor). OpenSSL builds and checks the chain without
    /// looking at time; the chain's validity at `instant` is then `CertificateValidity`'s, the rule the
    /// callers' caches apply too.
    func chain(leaf: X509Certificate, intermediate: X509Certificate, at instant: Date) -> Outcome {
        OpenSSLError.clear()
        defer { OpenSSLError.clear() }
        guard let context = X509_STORE_CTX_new(), let untrusted = recon_sk_X509_new_null() else { return .failure(-1) }
        defer {
            X509_STORE_CTX_free(context)
            recon_sk_X509_free(untrusted)
        }
        _ = recon_sk_X509_push(untrusted, intermediate.pointer)
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else { return .failure(-1) }
        let parameters = X509_STORE_CTX_get0_param(context)
        // No X509_VERIFY_PARAM_set_time: a set time overrides NO_CHECK_TIME.
        let flags = X509_V_FLAG_NO_CHECK_TIME | (strict ? X509_V_FLAG_X509_STRICT : 0)
        X509_VERIFY_PARAM_set_flags(parameters, UInt(flags))
        guard X509_verify_cert(context) == 1 else { return .failure(X509_STORE_CTX_get_error(context)) }
        guard let chain = X509_STORE_CTX_get0_chain(context), recon_sk_X509_num(chain) == 3,
            recon_sk_X509_value(chain, 1) == intermediate.pointer,
            let root = anchors.first(where: { $0.certificate.pointer == recon_sk_X509_value(chain, 2) })
        else { return .failure(-1) }
        switch CertificateValidity([leaf, intermediate, root.certificate]).problem(at: instant) {
        case nil: return .success(root.certificate)
        case .notYetValid: return .failure(X509_V_ERR_CERT_NOT_YET_VALID)
        case .expired: return .failure(X509_V_ERR_CERT_HAS_EXPIRED)
        }
    }
}
