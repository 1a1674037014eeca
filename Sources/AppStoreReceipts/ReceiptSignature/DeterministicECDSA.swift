import CLibCrypto

/// ECDSA P-256 signatures whose nonce is derived from the private key and the digest, so that the
/// same digest always gets the same signature (the idea of RFC 6979, with a simpler derivation).
///
/// Why: the simulator rebuilds a receipt from its world to recognise it when it is sent back
/// (`WorldReceiptLocator` compares bytes, as Apple's check is exact), so the receipts it signs must
/// be a pure function of their content; OpenSSL 3.0 only signs with random nonces. For the
/// throwaway keys of the simulator and the tests only, never for a key that guards anything: the
/// arithmetic here is not constant-time.
///
/// Unchecked `Sendable`: the group and the scalar are only read after `init`; each signature uses
/// its own `BN_CTX` and points.
final class DeterministicECDSA: @unchecked Sendable {
    private let group: OpaquePointer
    private let scalar: OpaquePointer
    private let scalarBytes: [UInt8]

    /// The signer of `key`'s private half; nil for a public key or one not on P-256.
    init?(key: ES256Key) {
        guard key.canSign else { return nil }
        OpenSSLError.clear()
        var scalar: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, "priv", &scalar) == 1, let scalar else {
            OpenSSLError.clear()
            return nil
        }
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            BN_clear_free(scalar)
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(scalar, &bytes, 32) == 32 else {
            BN_clear_free(scalar)
            EC_GROUP_free(group)
            return nil
        }
        self.group = group
        self.scalar = scalar
        scalarBytes = bytes
    }

    deinit {
        BN_clear_free(scalar)
        EC_GROUP_free(group)
    }

    /// The DER `ECDSA-Sig-Value` over `digest` (SHA-1 or SHA-256: at most the order's 256 bits, so
    /// used whole); nil only when OpenSSL fails.
    func sign(digest: [UInt8]) -> [UInt8]? {
        guard digest.count <= 32, let context = BN_CTX_new() else { return nil }
        defer { BN_CTX_free(context) }
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        guard let order = EC_GROUP_get0_order(group), let nonce = BN_CTX_get(context), let x = BN_CTX_get(context),
            let r = BN_CTX_get(context), let s = BN_CTX_get(context), let e = BN_CTX_get(context),
            let inverse = BN_CTX_get(context), let product = BN_CTX_get(context), let point = EC_POINT_new(group)
        else { return nil }
        defer { EC_POINT_free(point) }
        guard BN_bin2bn(digest, Int32(digest.count), e) != nil else { return nil }
        // A nonce of zero, or an r or s of zero, is astronomically rare; the counter moves past it.
        for counter in UInt8(0)..<16 {
            guard let seed = ReceiptDigest.sha256.hash(scalarBytes + digest + [counter]),
                BN_bin2bn(seed, 32, nonce) != nil, BN_nnmod(nonce, nonce, order, context) == 1
            else { return nil }
            if BN_is_zero(nonce) == 1 { continue }
            // r = x(k·G) mod n; s = k⁻¹ (e + r·d) mod n.
            guard EC_POINT_mul(group, point, nonce, nil, nil, context) == 1,
                EC_POINT_get_affine_coordinates(group, point, x, nil, context) == 1,
                BN_nnmod(r, x, order, context) == 1
            else { return nil }
            if BN_is_zero(r) == 1 { continue }
            guard BN_mod_inverse(inverse, nonce, order, context) != nil,
                BN_mod_mul(product, r, scalar, order, context) == 1,
                BN_mod_add(product, product, e, order, context) == 1,
                BN_mod_mul(s, inverse, product, order, context) == 1
            else { return nil }
            if BN_is_zero(s) == 1 { continue }
            let body = Self.integer(r) + Self.integer(s)
            return BERWriter.element(.sequence, body)
        }
        return nil
    }

    /// A non-negative `BIGNUM` as a minimal DER INTEGER.
    private static func integer(_ number: OpaquePointer) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
        _ = BN_bn2bin(number, &bytes)
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return BERWriter.element(.integer, bytes)
    }
}
