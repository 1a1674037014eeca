import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// `run --json`'s summary is read by scripts and alerts: its whole shape (every key, nested, with the
/// kind of its value) is compared at once, for a night on each backend and for a night that failed, so
/// a key renamed, dropped or added shows here. The values are asserted by the suites about them.
@Suite struct JSONSummaryShapeTests {
    /// The shape of a JSON value, one line a key path: `path: kind`, in key order. An array is described
    /// by its elements' shapes (`path[]`), a scalar by its kind.
    static func shape(_ value: Any, at path: String = "") -> [String] {
        switch value {
        case let object as [String: Any]:
            let keys = object.keys.sorted()
            if keys.isEmpty { return ["\(path): {}"] }
            return keys.flatMap { shape(object[$0]!, at: path.isEmpty ? $0 : "\(path).\($0)") }
        case let array as [Any]:
            let elements = Set(array.flatMap { shape($0, at: "\(path)[]") }).sorted()
            return elements.isEmpty ? ["\(path): []"] : elements
        case is NSNull:
            return ["\(path): null"]
        case is String:
            return ["\(path): string"]
        case let number as NSNumber:
            return ["\(path): \(String(cString: number.objCType) == "c" ? "bool" : "number")"]
        default:
            return ["\(path): \(type(of: value))"]
        }
    }

    static func shape(of result: ReceiptReconBinary.Result) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return shape(object).joined(separator: "\n") + "\n"
    }

    @Test func aVerifyReceiptNightsSummaryHasItsWholeShape() throws {
        try RunCommandTests.drifted { apple, database in
            let night = try RunCommandTests.run(database, apple, ["--json"])
            #expect(night.status == 0, "\(night.output)")
            #expect(try Self.shape(of: night) == ExpectedSummaryShape.verifyReceiptNight)
        }
    }

    @Test func aServerAPINightsSummaryHasItsWholeShape() throws {
        try VerdictWorld.seeded { api, database, db in
            let period = VerdictWorld.monthly(
                "3000000001", purchased: VerdictWorld.day(-20), expires: VerdictWorld.day(10))
            try VerdictWorld.row(db, "u-1", api.sign(period))
            try VerdictWorld.entitlement(db, "u-1", "premium", expires: VerdictWorld.day(10))
            api.script(.production, .history, id: "3000000001", [.history([period])])
            let night = try VerdictWorld.run(database, api)
            #expect(night.status == 0, "\(night.output)")
            #expect(try Self.shape(of: night) == ExpectedSummaryShape.serverAPINight)
        }
    }

    @Test func aFailedNightsSummaryHasItsWholeShape() throws {
        let port = try LoopbackSocket.freePort()
        let environment = ["DATABASE_URL": "host=127.0.0.1 port=\(port) dbname=recon user=recon connect_timeout=5"]
        let night = try ReceiptReconBinary.run(["run", "--json"], environment: environment)
        #expect(night.status == 69, "\(night.output)")
        #expect(try Self.shape(of: night) == ExpectedSummaryShape.failedNight)
    }
}
