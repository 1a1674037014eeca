import Foundation

/// What one `run` or `verify-user` was asked, as `recon_runs.options` records it: each recorded setting
/// under the key its declaration names (the CLI's settings table), whether or not the engine acts on it
/// (what it acts on is `RunOptions`). `report`, `export` and `compare` read some keys back (`Key`).
public struct RunRequest: Sendable, Equatable, Encodable {
    /// The keys read back, or told in `run.started`, besides being recorded.
    public enum Key {
        public static let backend = "backend"
        public static let version = "version"
        public static let environment = "environment"
        public static let bundleIDs = "bundleIDs"
        public static let rate = "rate"
        public static let rateBasis = "rateBasis"
    }

    /// Absent keys are left out of the JSON, as unset optionals always were.
    public private(set) var values: [String: RecordedValue] = [:]

    public init() {}

    public subscript(key: String) -> RecordedValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// `--backend` as recorded; nil in rows written before there was a choice.
    public var backend: String? { values[Key.backend]?.text }
    /// The version of receipt-recon that ran.
    public var version: String? { values[Key.version]?.text }

    /// What `run.started` says about bundle ids: the accepted ones, comma-separated, or that there is no check.
    public var bundleCheck: String {
        guard case .texts(let ids) = values[Key.bundleIDs], !ids.isEmpty else { return "no bundle check" }
        return ids.joined(separator: ",")
    }

    /// The rate as `run.started` prints it (`RunRequest.rateText`), nil when none was recorded.
    public var rateText: String? {
        guard case .number(let rate) = values[Key.rate] else { return nil }
        return Self.rateText(rate)
    }

    /// The sandbox's rate as `run.started` prints it (`--sandbox-rate`), nil when none was recorded.
    public var sandboxRateText: String? {
        guard case .number(let rate) = values["sandboxRate"] else { return nil }
        return Self.rateText(rate)
    }

    /// Where the rate came from: `--rate`, `default`, or the default divided among the shards.
    public var rateBasis: String? { values[Key.rateBasis]?.text }

    /// A rate with at most three decimals and no trailing zeros: `20`, `6.667`.
    public static func rateText(_ rate: Double) -> String {
        var text = String(format: "%.3f", rate)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RecordKey.self)
        for (key, value) in values { try container.encode(value, forKey: RecordKey(key)) }
    }

    private struct RecordKey: CodingKey {
        let stringValue: String
        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
