/// The keys seen so far, for keeping first occurrences: a short list scanned while it is small, a
/// set once it is not.
///
/// Why not always a `Set`: a user has a handful of transactions, and hashing each transaction id
/// (SipHash over 16 or more bytes, and a set's first growth) cost more than comparing it with the
/// few seen before (docs/benchmarks.md, "Measurements behind the code"). The set
/// takes over past `listLimit`, so a user with thousands of transactions is not quadratic.
struct SeenKeys<Key: Hashable> {
    static var listLimit: Int { 16 }

    private var list: [Key] = []
    private var set: Set<Key>?
    /// Instead of `set` once `position(inserting:)` is used past `listLimit`: each key's first position.
    private var positions: [Key: Int]?

    /// - Parameter expected: how many keys the caller may insert, so the list is allocated once.
    init(expected: Int = 0) {
        list.reserveCapacity(min(expected, Self.listLimit + 1))
    }

    /// Whether `key` was new; it is remembered either way.
    mutating func insert(_ key: Key) -> Bool {
        if set != nil { return set!.insert(key).inserted }
        if list.contains(key) { return false }
        list.append(key)
        if list.count > Self.listLimit {
            set = Set(list)
            list = []
        }
        return true
    }

    /// The position (order of first insertion) of `key` when it was seen before, else nil; it is
    /// remembered either way. Not to be mixed with `insert(_:)` on one instance.
    mutating func position(inserting key: Key) -> Int? {
        if positions != nil {
            if let position = positions![key] { return position }
            positions![key] = positions!.count
            return nil
        }
        if let position = list.firstIndex(of: key) { return position }
        list.append(key)
        if list.count > Self.listLimit {
            positions = Dictionary(uniqueKeysWithValues: list.enumerated().map { ($1, $0) })
            list = []
        }
        return nil
    }
}
