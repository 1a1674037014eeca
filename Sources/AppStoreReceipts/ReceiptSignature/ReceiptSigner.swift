import Foundation
import Synchronization

/// Signs app receipts with a `SigningChain`, in the layout of Apple's (PKCS#7 SignedData, version 1,
/// the content as `data`, the leaf, intermediate and root as certificates, one SignerInfo naming the
/// leaf by issuer and serial number, `rsaEncryption`, no signed attributes), with the chain's RSA-2048
/// receipt leaf signing PKCS #1 v1.5 as Apple's does: what the simulator seeds when it has a
/// `--pki-dir` chain, and what tests sign their receipts with. A run trusts such receipts only when
/// pointed at the chain's root (`APPLE_ROOT_CERTIFICATES`).
///
/// PKCS #1 v1.5 signatures are deterministic: a receipt is a pure function of its content and the
/// chain, so the simulator can rebuild and compare it.
///
/// Threading: `Sendable`; `sign` may be called from any thread.
package final class ReceiptSigner: Sendable {
    package let chain: SigningChain
    package let digest: ReceiptDigest
    private let key: RSASigningKey
    /// The receipt leaf's public key, for `isContainer`.
    private let publicKey: ReceiptSignerKey
    /// `[0] IMPLICIT` certificates: leaf, intermediate, root, as Apple orders them.
    private let certificates: [UInt8]
    /// `issuerAndSerialNumber` of the leaf.
    private let signerIdentifier: [UInt8]

    package enum SigningError: Error, CustomStringConvertible {
        case unusableChain(String)
        package var description: String {
            switch self {
            case .unusableChain(let reason): "cannot sign receipts with this chain: \(reason)"
            }
        }
    }

    package init(chain: SigningChain, digest: ReceiptDigest = .sha256) throws(SigningError) {
        guard let leaf = ReceiptSignedData.EmbeddedCertificate(der: chain.receiptLeaf.der) else {
            throw .unusableChain("the receipt leaf certificate's fields do not read")
        }
        guard let publicKey = ReceiptSignerKey(publicKeyOf: chain.receiptLeaf) else {
            throw .unusableChain("the receipt leaf certificate holds no usable public key")
        }
        self.chain = chain
        self.digest = digest
        self.publicKey = publicKey
        key = chain.receiptLeafKey
        certificates = BERWriter.element(
            .contextSpecific(0), children: [chain.receiptLeaf.der, chain.intermediate.der, chain.root.der])
        signerIdentifier = BERWriter.element(.sequence, children: [Array(leaf.issuer), Array(leaf.serial)])
    }

    /// The signed receipt of `receipt` (an app receipt), DER.
    package func appReceipt(_ receipt: LocalReceipt) -> [UInt8] {
        container(payload: LocalReceiptEncoder.payload(receipt))
    }

    /// `appReceipt(_:)` as base64, as a device sends it.
    package func base64(_ receipt: LocalReceipt) -> String {
        LocalReceiptBase64.encode(appReceipt(receipt))
    }

    /// The signed container of `payload` (a receipt attribute SET's DER).
    package func container(payload: [UInt8]) -> [UInt8] {
        container(payload: payload, signatureOf: payload)
    }

    /// A container holding `payload` under the signature of `signedPayload`: a receipt whose content
    /// was altered after Apple signed it (the simulator's forger), which no verification accepts.
    package func container(payload: [UInt8], signatureOf signedPayload: [UInt8]) -> [UInt8] {
        // A hash of bytes in memory and a signature with a key checked at `init` do not fail; an
        // empty signature would only make the receipt fail verification.
        let signature = digest.hash(signedPayload).flatMap { key.sign(digestValue: $0, digest) } ?? []
        return container(payload: payload, signature: signature)
    }

    /// Whether `bytes` are exactly `container(payload:)`, found without signing: the simulator asks
    /// this of every receipt sent to its verifyReceipt, and an RSA-2048 signature costs a millisecond
    /// or more where a verification costs tens of microseconds. The signature is the container's last
    /// bytes; the rest must be what this signer writes around it, and it must verify over `payload`,
    /// which makes it the one signature `container(payload:)` writes (PKCS #1 v1.5 is deterministic:
    /// one digest, one valid signature).
    package func isContainer(_ bytes: [UInt8], of payload: [UInt8]) -> Bool {
        let size = key.signatureSize
        guard bytes.count > size else { return false }
        let signature = bytes.suffix(size)
        guard container(payload: payload, signature: Array(signature)) == bytes,
            let digestValue = digest.hash(payload)
        else { return false }
        return publicKey.verify(signature: signature, digestValue: digestValue, digest)
    }

    private func container(payload: [UInt8], signature: [UInt8]) -> [UInt8] {
        let algorithm = digest.algorithmIdentifier
        let signerInfo = BERWriter.element(
            .sequence,
            children: [
                BERWriter.integer(1), signerIdentifier, algorithm, ReceiptSignatureAlgorithm.rsaEncryption,
                BERWriter.octetString(signature),
            ])
        let content = BERWriter.element(
            .sequence,
            children: [
                BERWriter.objectIdentifier(LocalReceiptDecoder.dataOID),
                BERWriter.element(.contextSpecific(0), children: [BERWriter.octetString(payload)]),
            ])
        let signedData = BERWriter.element(
            .sequence,
            children: [
                BERWriter.integer(1), BERWriter.element(.set, children: [algorithm]), content, certificates,
                BERWriter.element(.set, children: [signerInfo]),
            ])
        return BERWriter.element(
            .sequence,
            children: [
                BERWriter.objectIdentifier(LocalReceiptDecoder.signedDataOID),
                BERWriter.element(.contextSpecific(0), children: [signedData]),
            ])
    }
}

extension SigningChain {
    /// This chain's SHA-256 receipt signer, made once and reused while the same chain signs (the
    /// simulator signs receipt after receipt with one chain); nil when the chain cannot sign.
    package var receiptSigner: ReceiptSigner? {
        if let last = LastReceiptSigner.shared.signer.withLock({ $0 }), last.chain.receiptLeaf.der == receiptLeaf.der,
            last.chain.intermediate.der == intermediate.der, last.chain.root.der == root.der
        {
            return last
        }
        guard let signer = try? ReceiptSigner(chain: self) else { return nil }
        LastReceiptSigner.shared.signer.withLock { $0 = signer }
        return signer
    }
}

/// The signer `SigningChain.receiptSigner` made last.
private final class LastReceiptSigner: Sendable {
    static let shared = LastReceiptSigner()
    let signer = Mutex<ReceiptSigner?>(nil)
}
