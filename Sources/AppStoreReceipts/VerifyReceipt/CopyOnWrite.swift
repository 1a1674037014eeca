/// A value kept in a shared box, copied only when written while shared: for the models that travel
/// the job's pipeline whole (`VerifyReceiptTransaction`, `VerifyReceiptResponse`), a copy is one
/// retain instead of one per string and list inside them.
package struct CopyOnWrite<Value: Hashable & Sendable>: Hashable, Sendable {
    private var box: Box

    package init(_ value: Value) { box = Box(value) }

    package var value: Value {
        get { box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.box === rhs.box || lhs.box.value == rhs.box.value }

    package func hash(into hasher: inout Hasher) { box.value.hash(into: &hasher) }

    /// Never written while shared (`value` copies it first), so `@unchecked Sendable` holds as it does
    /// for the standard library's copy-on-write buffers; for the same reason the runtime's exclusivity
    /// check on every read of a field is left out.
    private final class Box: @unchecked Sendable {
        @exclusivity(unchecked) var value: Value
        init(_ value: Value) { self.value = value }
    }
}
