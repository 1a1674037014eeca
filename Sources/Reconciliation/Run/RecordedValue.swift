import AppStoreReceipts
import Foundation

/// One value of `recon_runs.options`, encoded as the JSON a `Codable` property of its type would be
/// (numbers as numbers, dates through the encoder's date strategy), so the record reads the same
/// whichever setting wrote it.
public enum RecordedValue: Sendable, Equatable, Encodable {
    case flag(Bool)
    case integer(Int)
    case number(Double)
    case text(String)
    case texts([String])
    case instant(Date)

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .flag(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .texts(let value): try container.encode(value)
        case .instant(let value): try container.encode(value)
        }
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

/// A value a setting can be recorded as.
public protocol Recordable: Sendable {
    var recorded: RecordedValue { get }
}

extension Bool: Recordable {
    public var recorded: RecordedValue { .flag(self) }
}

extension Int: Recordable {
    public var recorded: RecordedValue { .integer(self) }
}

extension Double: Recordable {
    public var recorded: RecordedValue { .number(self) }
}

extension String: Recordable {
    public var recorded: RecordedValue { .text(self) }
}

extension Date: Recordable {
    public var recorded: RecordedValue { .instant(self) }
}

extension Array: Recordable where Element == String {
    public var recorded: RecordedValue { .texts(self) }
}

extension RawRepresentable where Self: Recordable, RawValue == String {
    public var recorded: RecordedValue { .text(rawValue) }
}

extension SandboxPolicy: Recordable {}
extension AppStoreEnvironment: Recordable {}
extension HTTPTransportKind: Recordable {}
