import AppStoreReceipts
import AppStoreSimulator
import Foundation

/// verifyReceipt answers as the simulator writes them, for decoder tests: every receipt of a
/// small deterministic world, asked on both endpoints, with and without exclude-old-transactions.
enum SimulatorAnswers {
    static let world = SimulatedWorld(users: 200, seed: 7, asOf: Date(timeIntervalSince1970: 1_795_316_400))

    /// Every answer, in world order (with repeats: several users share answers' shapes, not bytes).
    static let all: [[UInt8]] = {
        let simulator = AppStoreSimulator(world: world)
        var answers: [[UInt8]] = []
        world.forEachUnit { unit in
            for user in unit.users {
                for row in user.receipts {
                    for endpoint in AppStoreEnvironment.allCases {
                        for excludeOld in [true, false] {
                            let request = VerifyReceiptRequest(
                                receiptData: unit.receiptData(row.slot), excludeOldTransactions: excludeOld)
                            guard let body = try? request.jsonBody() else { continue }
                            answers.append(simulator.answer(body: Array(body), endpoint: endpoint).jsonBytes)
                        }
                    }
                }
            }
        }
        return answers
    }()

    /// Every `receipt_data` of the world, in world order: every scenario kind (app, tampered, iOS 6,
    /// Xcode, garbage, empty, not base64), in the proportions the job meets them.
    static let receiptData: [String] = {
        var receipts: [String] = []
        world.forEachUnit { unit in
            for user in unit.users {
                for row in user.receipts { receipts.append(unit.receiptData(row.slot)) }
            }
        }
        return receipts
    }()

    /// Valid (status 0) answers, all sizes up to `maximumSize`.
    static let valid: [[UInt8]] = all.filter { (try? VerifyReceiptResponse.decode(Data($0)))?.rawStatus == 0 }
        .sorted { $0.count < $1.count }

    /// `count` valid answers of sizes spread from the smallest to `maximumSize` bytes.
    static func sample(count: Int, maximumSize: Int = 8_000) -> [[UInt8]] {
        let candidates = valid.filter { $0.count <= maximumSize }
        guard candidates.count > count else { return candidates }
        return (0..<count).map { candidates[(candidates.count - 1) * $0 / max(count - 1, 1)] }
    }

    /// The valid answer closest to `size` bytes: the profile's typical answer is about 6.5 KB,
    /// a subscriber with several renewals.
    static func typical(size: Int = 6_500) -> [UInt8] {
        valid.min { abs($0.count - size) < abs($1.count - size) }!
    }
}
