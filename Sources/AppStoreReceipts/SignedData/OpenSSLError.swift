import CLibCrypto

/// OpenSSL's own account of why a call failed: the oldest error on the calling thread's queue.
///
/// The queue is per thread and outlives the call that filled it, so every wrapper clears it before
/// calling (`OpenSSLError.clear()`) and reads it right after a failure; otherwise a failure would be
/// explained by another call's leftovers.
struct OpenSSLError: Error, CustomStringConvertible {
    let operation: String
    let reason: String

    /// The error of `operation`, taking (and emptying) the thread's queue.
    static func take(_ operation: String) -> OpenSSLError {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return OpenSSLError(operation: operation, reason: "no detail") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return OpenSSLError(operation: operation, reason: text)
    }

    static func clear() { ERR_clear_error() }

    var description: String { "\(operation): \(reason)" }
}
