/// A value kept in a shared box, copied only when written while shared: for the models that travel
/// the job's pipeline whole (`VerifyReceiptTransaction`, `VerifyReceiptResponse`, the job's
/// `Purchase`), a copy is one retain instead of one per string and list inside them.
///
/// Why `value` is read through `_read` and inlinable: a plain getter returns a copy of the whole
/// value, and from another module (the job's `Purchase`) it is an opaque call, so reading one field
/// retained and released every string of the value. Borrowed in place, a field read copies that
/// field alone.
package struct CopyOnWrite<Value: Hashable & Sendable>: Hashable, Sendable {
    @usableFromInline var box: Box

    @inlinable
    package init(_ value: Value) { box = Box(value) }

    @inlinable
    package var value: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    @inlinable
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.box === rhs.box || lhs.box.value == rhs.box.value }

    @inlinable
    package func hash(into hasher: inout Hasher) { box.value.hash(into: &hasher) }

    /// Never written while shared (`value` copies it first), so `@unchecked Sendable` holds as it does
    /// for the standard library's copy-on-write buffers; for the same reason the runtime's exclusivity
    /// check on every read of a field is left out.
    @usableFromInline
    final class Box: @unchecked Sendable {
        @usableFromInline @exclusivity(unchecked) var value: Value
        @usableFromInline init(_ value: Value) { self.value = value }
    }
}
