/// One BER element of a `BERDocument`: where its header and content lie, and where its subtree
/// ends in the document's node list.
struct BERNode: Sendable {
    var tag: BERTag
    /// Index of the first identifier octet.
    var headerStart: Int
    /// Index of the first content octet.
    var contentStart: Int
    /// Index one past the last content octet (before the end-of-contents marker, if any).
    var contentEnd: Int
    /// Index in `BERDocument.nodes` one past this node's last descendant.
    var subtreeEnd: Int
}

/// A BER-encoded element parsed in one pass into a flat, pre-order list of nodes.
///
/// Receipts arrive as definite-length DER from the App Store and as indefinite-length BER with
/// chunked (constructed) OCTET STRINGs from Xcode, so both are accepted. Input is hostile, so:
/// the parse is iterative with an explicit stack capped at `maxDepth`; every length is checked
/// against the bytes its enclosure has left before anything is sliced; lengths are read into
/// `UInt64` from at most 8 octets, so they cannot overflow; and the node count is capped at
/// `maxElements`, which bounds memory whatever the input size. Nothing is copied: nodes are
/// index ranges into `bytes`.
///
/// Because descendants follow their ancestor contiguously in pre-order, a node's subtree is the
/// index range `index + 1 ..< subtreeEnd`, which makes walking children and concatenating
/// chunked strings loops instead of recursion.
struct BERDocument: Sendable {
    static let maxDepth = 32
    static let maxElements = 200_000

    let bytes: ArraySlice<UInt8>
    private(set) var nodes: [BERNode] = []

    /// Parses exactly one element spanning all of `bytes`.
    init(parsing bytes: ArraySlice<UInt8>) throws(ReceiptDecodingError) {
        self.bytes = bytes
        try parse()
    }

    static let root = 0

    subscript(index: Int) -> BERNode { nodes[index] }

    /// The `position`th direct child (from 0) of the node at `index`, or nil when it has fewer;
    /// for walking a fixed structure without an array per level.
    func child(_ position: Int, of index: Int) -> Int? {
        var children = childIndices(of: index)
        for _ in 0..<position {
            if children.next() == nil { return nil }
        }
        return children.next()
    }

    /// The direct children of the node at `index`, in encoding order, without building an array.
    func childIndices(of index: Int) -> Children {
        Children(nodes: nodes, position: index + 1, end: nodes[index].subtreeEnd)
    }

    struct Children: Sequence, IteratorProtocol {
        let nodes: [BERNode]
        var position: Int
        let end: Int

        mutating func next() -> Int? {
            guard position < end else { return nil }
            defer { position = nodes[position].subtreeEnd }
            return position
        }
    }

    /// The children of the node at `index` when it has exactly three (as a receipt attribute
    /// does), else nil.
    func threeChildren(of index: Int) -> (Int, Int, Int)? {
        let end = nodes[index].subtreeEnd
        let first = index + 1
        guard first < end else { return nil }
        let second = nodes[first].subtreeEnd
        guard second < end else { return nil }
        let third = nodes[second].subtreeEnd
        guard third < end, nodes[third].subtreeEnd == end else { return nil }
        return (first, second, third)
    }

    /// Whether `octetString(at:)` has a value for the node at `index`, without joining chunks.
    func isOctetString(at index: Int) -> Bool {
        guard nodes[index].tag.isUniversal(BERTag.octetStringNumber) else { return false }
        guard nodes[index].tag.isConstructed else { return true }
        return nodes[(index + 1)..<nodes[index].subtreeEnd].allSatisfy { $0.tag.isUniversal(BERTag.octetStringNumber) }
    }

    /// The content octets of a primitive node (for a constructed node: its children's encoding).
    func content(of index: Int) -> ArraySlice<UInt8> {
        bytes[nodes[index].contentStart..<nodes[index].contentEnd]
    }

    /// The value of an OCTET STRING node, concatenating the chunks of a constructed one; nil
    /// for any other node.
    ///
    /// Xcode's StoreKit receipts wrap the payload in constructed OCTET STRINGs, possibly nested;
    /// every descendant must itself be an OCTET STRING (X.690 §8.7.3).
    func octetString(at index: Int) -> ArraySlice<UInt8>? {
        let node = nodes[index]
        guard node.tag.isUniversal(BERTag.octetStringNumber) else { return nil }
        guard node.tag.isConstructed else { return content(of: index) }
        var joined: [UInt8] = []
        joined.reserveCapacity(node.contentEnd - node.contentStart)
        for descendant in index + 1..<node.subtreeEnd {
            let chunk = nodes[descendant]
            guard chunk.tag.isUniversal(BERTag.octetStringNumber) else { return nil }
            if !chunk.tag.isConstructed {
                joined.append(contentsOf: bytes[chunk.contentStart..<chunk.contentEnd])
            }
        }
        return joined[...]
    }

    /// Offset of `index` from the start of the parsed bytes, for error messages.
    func offset(_ index: Int) -> Int { index - bytes.startIndex }

    private struct OpenElement {
        var node: Int
        /// Content end of a definite-length element; nil while an indefinite one awaits `00 00`.
        var end: Int?
        /// How far this element's children may reach.
        var bound: Int
    }

    private mutating func parse() throws(ReceiptDecodingError) {
        // A receipt averages about a node per 10 bytes: one allocation instead of a dozen regrowths.
        // Capped, so a large input reserves at most 8,192 nodes up front and grows from there.
        nodes.reserveCapacity(min(bytes.count / 8 + 4, 8192))
        var open: [OpenElement] = []
        open.reserveCapacity(Self.maxDepth)
        var position = bytes.startIndex
        while true {
            // Close every definite-length element whose content is complete.
            while let top = open.last, let end = top.end, position == end {
                nodes[top.node].contentEnd = end
                nodes[top.node].subtreeEnd = nodes.count
                open.removeLast()
            }
            if open.isEmpty && !nodes.isEmpty { break }
            let bound = open.last?.bound ?? bytes.endIndex
            if position == bound {
                if let top = open.last { throw .missingEndOfContents(offset: offset(nodes[top.node].headerStart)) }
                throw .truncatedHeader(offset: offset(position))
            }

            let header = try BERHeader.read(bytes, at: position, bound: bound)
            if header.isEndOfContents {
                guard let top = open.last, top.end == nil else {
                    throw .malformedDER(offset: offset(position), problem: .strayEndOfContents)
                }
                nodes[top.node].contentEnd = position
                nodes[top.node].subtreeEnd = nodes.count
                open.removeLast()
                position = header.contentStart
                continue
            }
            guard nodes.count < Self.maxElements else { throw .tooManyElements(limit: Self.maxElements) }
            let contentEnd = header.length.map { header.contentStart + $0 }
            nodes.append(
                BERNode(
                    tag: header.tag,
                    headerStart: position,
                    contentStart: header.contentStart,
                    contentEnd: contentEnd ?? header.contentStart,
                    subtreeEnd: nodes.count + 1
                ))
            if header.tag.isConstructed {
                guard open.count < Self.maxDepth else { throw .nestingTooDeep(limit: Self.maxDepth) }
                open.append(OpenElement(node: nodes.count - 1, end: contentEnd, bound: contentEnd ?? bound))
                position = header.contentStart
            } else {
                // BERHeader.read refuses an indefinite length on a primitive element.
                position = contentEnd ?? header.contentStart
            }
        }
        if position != bytes.endIndex { throw .trailingBytes(offset: offset(position)) }
    }
}

/// The identifier and length octets of one element, read with every bound checked.
struct BERHeader: Sendable {
    var tag: BERTag
    /// nil for the indefinite form.
    var length: Int?
    var contentStart: Int
    var isEndOfContents: Bool

    /// Reads the header at `position`; the element's content must end by `bound`.
    static func read(
        _ bytes: ArraySlice<UInt8>, at position: Int, bound: Int
    ) throws(ReceiptDecodingError) -> BERHeader {
        let headerOffset = position - bytes.startIndex
        var cursor = position
        guard cursor < bound else { throw .truncatedHeader(offset: headerOffset) }
        let leading = bytes[cursor]
        cursor += 1
        let tagClass = BERTag.TagClass(rawValue: leading >> 6) ?? .private
        let isConstructed = leading & 0x20 != 0
        var number = UInt32(leading & 0x1F)
        if number == 0x1F {
            number = 0
            while true {
                guard cursor < bound else { throw .truncatedHeader(offset: headerOffset) }
                let octet = bytes[cursor]
                cursor += 1
                guard number < 1 << 21 else { throw .malformedDER(offset: headerOffset, problem: .tagNumberTooLarge) }
                number = number << 7 | UInt32(octet & 0x7F)
                if octet & 0x80 == 0 { break }
            }
        }
        guard cursor < bound else { throw .truncatedHeader(offset: headerOffset) }
        let lengthOctet = bytes[cursor]
        cursor += 1

        if leading == 0 {
            // Universal, primitive, tag 0: only the end-of-contents marker `00 00` is legal.
            guard lengthOctet == 0 else { throw .malformedDER(offset: headerOffset, problem: .malformedEndOfContents) }
            return BERHeader(tag: .universal(0), length: 0, contentStart: cursor, isEndOfContents: true)
        }
        let tag = BERTag(tagClass: tagClass, isConstructed: isConstructed, number: number)

        let declared: UInt64
        switch lengthOctet {
        case 0..<0x80:
            declared = UInt64(lengthOctet)
        case 0x80:
            guard isConstructed else {
                throw .malformedDER(offset: headerOffset, problem: .indefiniteLengthPrimitive)
            }
            return BERHeader(tag: tag, length: nil, contentStart: cursor, isEndOfContents: false)
        case 0xFF:
            throw .malformedDER(offset: headerOffset, problem: .reservedLengthOctet)
        default:
            let count = Int(lengthOctet & 0x7F)
            guard count <= 8 else { throw .malformedDER(offset: headerOffset, problem: .lengthFieldTooLong) }
            guard bound - cursor >= count else { throw .truncatedHeader(offset: headerOffset) }
            var value: UInt64 = 0
            for octet in bytes[cursor..<cursor + count] {
                value = value << 8 | UInt64(octet)  // at most 8 octets: cannot overflow
            }
            cursor += count
            declared = value
        }
        let remaining = bound - cursor
        guard declared <= UInt64(remaining) else {
            throw .lengthExceedsInput(offset: headerOffset, declaredLength: declared, remaining: remaining)
        }
        return BERHeader(tag: tag, length: Int(declared), contentStart: cursor, isEndOfContents: false)
    }

    /// Reads one primitive element that must span all of `bytes` (an attribute value).
    /// Returns nil when `bytes` is not exactly one primitive element.
    static func singlePrimitive(
        _ bytes: ArraySlice<UInt8>
    ) -> (tag: BERTag, content: ArraySlice<UInt8>)? {
        guard let header = try? read(bytes, at: bytes.startIndex, bound: bytes.endIndex),
            !header.isEndOfContents, !header.tag.isConstructed, let length = header.length,
            header.contentStart + length == bytes.endIndex
        else { return nil }
        return (header.tag, bytes[header.contentStart..<bytes.endIndex])
    }
}
