/// A JSON array of an `AppleJSONDocument`, read element by element.
struct AppleJSONArray: Equatable, Sendable, Sequence {
    let document: AppleJSONDocument
    /// The array's node on the document's tape.
    let index: Int

    struct Iterator: IteratorProtocol {
        let document: AppleJSONDocument
        var position: Int
        let end: Int

        mutating func next() -> AppleJSONValue? {
            guard position < end else { return nil }
            defer { position += document.tape[position].width }
            return document.value(at: position)
        }
    }

    func makeIterator() -> Iterator {
        Iterator(document: document, position: index + 1, end: index + document.tape[index].width)
    }

    static func == (lhs: AppleJSONArray, rhs: AppleJSONArray) -> Bool {
        Array(lhs) == Array(rhs)
    }
}
