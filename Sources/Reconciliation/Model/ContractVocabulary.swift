/// A vocabulary of the contract (CONTRACT §3–§4): an enum whose raw values are the contract's
/// names, so the CLI, the tables, the summary JSON, the report and the metrics print exactly those.
public protocol ContractVocabulary: RawRepresentable, CaseIterable, Hashable, Sendable, Codable, CodingKeyRepresentable,
    CustomStringConvertible
where RawValue == String {}

extension ContractVocabulary {
    public var description: String { rawValue }

    /// The value named `name`, as read back from the job's own tables.
    /// - Throws: `UnknownVocabularyName` for a name this build does not know (a row written by a
    ///   newer build, or edited by hand).
    public init(contractName name: String) throws(UnknownVocabularyName) {
        guard let value = Self(rawValue: name) else {
            throw UnknownVocabularyName(vocabulary: String(describing: Self.self), name: name)
        }
        self = value
    }
}

/// A stored name outside the vocabulary this build knows.
public struct UnknownVocabularyName: Error, CustomStringConvertible, Sendable {
    public var vocabulary: String
    public var name: String

    public var description: String {
        "unknown \(vocabulary) '\(name)' in the job's tables: written by a newer receipt-recon? upgrade this one"
    }
}
