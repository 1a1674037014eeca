import Foundation

/// Converts option text to typed values. Every failure names the option and the expected form, so a
/// typo in a crontab is caught before anything runs.
///
/// Programs add parsers for their own vocabulary in extensions, built on `fail`.
public struct ValueParsers: Sendable {
    /// Where a failure points for help, e.g. `receipt-recon run` (see `OptionError`).
    public let invocation: String

    public init(invocation: String) { self.invocation = invocation }

    /// `--option expects <expected>, got '<text>'`.
    public func fail(_ option: String, _ expected: String, _ text: String) -> OptionError {
        OptionError("--\(option) expects \(expected), got '\(text)'", invocation: invocation)
    }

    /// A finite number greater than zero.
    public func positiveNumber(_ option: String, _ text: String) throws(OptionError) -> Double {
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw fail(option, "a number greater than 0", text)
        }
        return value
    }

    /// A finite number of at least zero.
    public func nonNegativeNumber(_ option: String, _ text: String) throws(OptionError) -> Double {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw fail(option, "a number of at least 0", text)
        }
        return value
    }

    /// A whole number within `range`.
    public func integer(_ option: String, _ text: String, in range: ClosedRange<Int>) throws(OptionError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            let upper = range.upperBound == Int.max ? "" : " and at most \(range.upperBound)"
            throw fail(option, "a whole number of at least \(range.lowerBound)\(upper)", text)
        }
        return value
    }

    /// A whole number from 0 to `UInt64.max` (seeds).
    public func unsignedInteger(_ option: String, _ text: String) throws(OptionError) -> UInt64 {
        guard let value = UInt64(text) else { throw fail(option, "a whole number of at least 0", text) }
        return value
    }

    /// A ratio between 0 and 1 inclusive.
    public func ratio(_ option: String, _ text: String) throws(OptionError) -> Double {
        guard let value = Double(text), value >= 0, value <= 1 else {
            throw fail(option, "a ratio between 0 and 1 (e.g. 0.10)", text)
        }
        return value
    }

    /// One of `choices`, spelled exactly.
    public func choice(_ option: String, _ text: String, _ choices: [String]) throws(OptionError) -> String {
        guard choices.contains(text) else {
            throw fail(option, choices.map { "'\($0)'" }.joined(separator: " or "), text)
        }
        return text
    }

    /// Any text but the empty string (`--name=` is a slip, never a meaningful value), described as
    /// `expected` in the error, e.g. "a path".
    public func nonEmpty(_ option: String, _ text: String, _ expected: String) throws(OptionError) -> String {
        guard !text.isEmpty else { throw fail(option, expected, text) }
        return text
    }

    /// An http or https URL with a host.
    public func url(_ option: String, _ text: String) throws(OptionError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else { throw fail(option, "an http:// or https:// URL", text) }
        return url
    }
}
