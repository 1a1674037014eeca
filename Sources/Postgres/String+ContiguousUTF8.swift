extension String {
    /// `body` with the string's UTF-8 bytes in one buffer. Native and small strings lend their bytes in
    /// place; only a bridged one is copied first (`withUTF8` needs a `var`: a retain per call, and the
    /// writers call this for tens of thousands of cells a batch). Appending `utf8` itself would go
    /// through the view's generic path, a byte at a time.
    @inlinable
    func withContiguousUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var text = self
        return try text.withUTF8(body)
    }
}
