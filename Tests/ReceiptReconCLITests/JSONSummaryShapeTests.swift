import Foundation
import TestSupport
import Testing

/// `run --json`'s summary is read by scripts and alerts: its whole shape (every key, nested, with the
/// kind of its value) is compared at once, so a key renamed, dropped or added shows here. The values
/// are asserted by the suites about them.
@Suite struct JSONSummaryShapeTests {
    /// A JSON value's shape, as decoded: JSON's own kinds, `true`/`false` apart from numbers.
    indirect enum Shape: Decodable {
        case object([String: Shape])
        case array([Shape])
        case string, number, bool, null

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if (try? value.decode(Bool.self)) != nil {
                self = .bool
            } else if (try? value.decode(Double.self)) != nil {
                self = .number
            } else if (try? value.decode(String.self)) != nil {
                self = .string
            } else if let elements = try? value.decode([Shape].self) {
                self = .array(elements)
            } else {
                self = .object(try value.decode([String: Shape].self))
            }
        }

        /// One line a key path, `path: kind`, in key order; an array by its elements' shapes (`path[]`).
        func lines(at path: String = "") -> [String] {
            switch self {
            case .object(let members) where members.isEmpty: return ["\(path): {}"]
            case .object(let members):
                return members.keys.sorted().flatMap { members[$0]!.lines(at: path.isEmpty ? $0 : "\(path).\($0)") }
            case .array(let elements) where elements.isEmpty: return ["\(path): []"]
            case .array(let elements): return Set(elements.flatMap { $0.lines(at: "\(path)[]") }).sorted()
            case .string: return ["\(path): string"]
            case .number: return ["\(path): number"]
            case .bool: return ["\(path): bool"]
            case .null: return ["\(path): null"]
            }
        }
    }

    static func shape(of result: ReceiptReconBinary.Result) throws -> String {
        try JSONDecoder().decode(Shape.self, from: Data(result.stdout.utf8)).lines().joined(separator: "\n") + "\n"
    }

    @Test func aFailedNightsSummaryHasItsWholeShape() throws {
        let port = try LoopbackSocket.freePort()
        let environment = ["DATABASE_URL": "host=127.0.0.1 port=\(port) dbname=recon user=recon connect_timeout=5"]
        let night = try ReceiptReconBinary.run(["run", "--json"], environment: environment)
        #expect(night.status == 69, "\(night.output)")
        #expect(try Self.shape(of: night) == Self.failedNight)
    }

    /// A night that could not reach its database (exit 69).
    static let failedNight = """
        dryRun: bool
        exitCode: number
        kind: string
        reason: string
        refundedAmount: []
        reversedRefundAmount: []
        shard: string
        status: string

        """
}
