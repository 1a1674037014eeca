/// Header fields in the order they arrived, looked up without regard to ASCII case.
///
/// Repeated fields are kept as separate entries; `self[name]` returns the first, `values(for:)` all of them.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    public private(set) var fields: [Field]

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field called `name` (any case), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the field called `name`, in arrival order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    public var count: Int { fields.count }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison without allocating lowercased copies (field names are tokens).
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        return zip(x, y).allSatisfy { lowerASCII($0) == lowerASCII($1) }
    }

    static func lowerASCII(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
