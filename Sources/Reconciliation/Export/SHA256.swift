import CLibCrypto

/// SHA-256, streaming: the export manifest's checksum, from libcrypto (`EVP_sha256`), which the job
/// already links for Apple's signatures.
///
/// A value like any other: a copy hashes on from where the original was, independently (the libcrypto
/// context is copied on the first update after the copy). An allocation or digest failure in libcrypto
/// is out of memory and traps rather than yield a wrong checksum.
public struct SHA256: Sendable {
    private var context: Context

    public init() { context = Context() }

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        let done = bytes.withContiguousStorageIfAvailable { context.update($0) }
        if done == nil {
            let contiguous = Array(bytes)
            contiguous.withUnsafeBufferPointer { context.update($0) }
        }
    }

    /// The digest; the hasher should not be updated afterwards.
    public mutating func finalize() -> [UInt8] {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        return context.finalize()
    }

    /// Lower-case hex of the digest.
    public mutating func hexDigest() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in finalize() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.hexDigest()
    }

    /// One `EVP_MD_CTX`. `@unchecked Sendable`: only the `SHA256` value that references it uniquely
    /// touches it (a shared one is copied before any change), so no two threads ever use it at once.
    private final class Context: @unchecked Sendable {
        let handle: OpaquePointer

        init() {
            guard let handle = EVP_MD_CTX_new(), EVP_DigestInit_ex(handle, EVP_sha256(), nil) == 1 else {
                fatalError("libcrypto could not start a SHA-256 context")
            }
            self.handle = handle
        }

        private init(copying other: OpaquePointer) {
            guard let handle = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(handle, other) == 1 else {
                fatalError("libcrypto could not copy a SHA-256 context")
            }
            self.handle = handle
        }

        deinit { EVP_MD_CTX_free(handle) }

        func copy() -> Context { Context(copying: handle) }

        func update(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count > 0 else { return }
            guard EVP_DigestUpdate(handle, bytes.baseAddress, bytes.count) == 1 else {
                fatalError("libcrypto could not hash")
            }
        }

        func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(handle, &digest, &length) == 1, length == 32 else {
                fatalError("libcrypto could not finish a SHA-256 digest")
            }
            return digest
        }
    }
}
