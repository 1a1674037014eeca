import AppStoreReceipts
import CivilTime
import Foundation

/// One JSON object as `JSONEncoder.sorted` writes it: members in the byte order of their keys, no
/// spaces, strings escaped as Foundation escapes them (`/` as `\/`), absent values left out.
///
/// Evidence is stored through `text` rather than `JSONEncoder`: the encoder boxes every value and
/// looks up generic metadata for each, which cost more per correction than the rest of its row. The
/// same members encode through `Encodable` where evidence sits inside a larger document
/// (`verify-user --explain --json`), so what is written is decided once.
struct SortedJSONObject: Encodable {
    enum Value {
        case string(String)
        case integer(Int64)
        case bool(Bool)
        /// A decimal's exact digits (`25`, `33.333`).
        case decimal(Decimal)
        case strings([String])
        case objects([SortedJSONObject])
    }

    private(set) var members: [(key: String, value: Value)] = []

    private static let style = JSONString.Style.encoderEscapingSlashes

    mutating func add(_ key: some CodingKey, _ value: String?) {
        if let value { members.append((key.stringValue, .string(value))) }
    }

    mutating func add(_ key: some CodingKey, _ value: Int64?) {
        if let value { members.append((key.stringValue, .integer(value))) }
    }

    mutating func add(_ key: some CodingKey, _ value: Int?) {
        if let value { members.append((key.stringValue, .integer(Int64(value)))) }
    }

    mutating func add(_ key: some CodingKey, _ value: Bool?) {
        if let value { members.append((key.stringValue, .bool(value))) }
    }

    mutating func add(_ key: some CodingKey, _ value: Decimal?) {
        if let value { members.append((key.stringValue, .decimal(value))) }
    }

    /// `2026-11-03T10:00:00Z`, `.SSS` only when there are milliseconds (`Instant.format`).
    mutating func add(_ key: some CodingKey, instant: Date?) {
        add(key, instant.map(Instant.format))
    }

    /// Left out when empty.
    mutating func add(_ key: some CodingKey, _ values: [String]) {
        if !values.isEmpty { members.append((key.stringValue, .strings(values))) }
    }

    /// Left out when empty.
    mutating func add(_ key: some CodingKey, _ objects: [SortedJSONObject]) {
        if !objects.isEmpty { members.append((key.stringValue, .objects(objects))) }
    }

    var text: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func write(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, member) in sortedMembers.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONString.append(member.key, to: &bytes, style: Self.style)
            bytes.append(UInt8(ascii: ":"))
            Self.write(member.value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private var sortedMembers: [(key: String, value: Value)] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    private static func write(_ value: Value, to bytes: inout [UInt8]) {
        switch value {
        case .string(let text): JSONString.append(text, to: &bytes, style: style)
        case .integer(let number): bytes += String(number).utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .decimal(let number): bytes += number.description.utf8
        case .strings(let texts):
            writeArray(texts, to: &bytes) { JSONString.append($0, to: &$1, style: style) }
        case .objects(let objects):
            writeArray(objects, to: &bytes) { $0.write(to: &$1) }
        }
    }

    private static func writeArray<Element>(
        _ elements: [Element], to bytes: inout [UInt8], _ each: (Element, inout [UInt8]) -> Void
    ) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            each(element, &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in members {
            let key = Key(stringValue: key)
            switch value {
            case .string(let text): try container.encode(text, forKey: key)
            case .integer(let number): try container.encode(number, forKey: key)
            case .bool(let flag): try container.encode(flag, forKey: key)
            case .decimal(let number): try container.encode(number, forKey: key)
            case .strings(let texts): try container.encode(texts, forKey: key)
            case .objects(let objects): try container.encode(objects, forKey: key)
            }
        }
    }
}
