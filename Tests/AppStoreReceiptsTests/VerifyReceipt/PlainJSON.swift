@testable import AppStoreReceipts

/// A parsed value copied out of its document, to compare with an expectation written inline.
indirect enum PlainJSON: Equatable, Sendable {
    struct Member: Equatable, Sendable {
        var key: String
        var value: PlainJSON
    }

    case object([Member])
    case array([PlainJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    init(_ value: AppleJSONValue) {
        switch value {
        case .object(let object): self = .object(object.members.map { Member(key: $0.key, value: PlainJSON($0.value)) })
        case .array(let array): self = .array(array.map(PlainJSON.init))
        case .string(let text): self = .string(text)
        case .number(let literal): self = .number(literal)
        case .bool(let flag): self = .bool(flag)
        case .null: self = .null
        }
    }
}
