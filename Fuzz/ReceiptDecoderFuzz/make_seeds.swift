// Writes encoder-made seed inputs for the receipt decoder fuzzer into a directory. Compiled into
// the fuzzer by Fuzz/run-receipt-decoder-fuzz.sh, which runs it once with RECEIPT_FUZZ_WRITE_SEEDS
// naming the directory: the fuzzer then writes the seeds and exits instead of fuzzing (one build of
// the module, not a second uninstrumented one for a seed generator).
import Foundation

@_cdecl("LLVMFuzzerInitialize")
public func receiptDecoderFuzzInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    guard let directory = getenv("RECEIPT_FUZZ_WRITE_SEEDS") else { return 0 }
    do {
        try MakeSeeds.write(to: URL(fileURLWithPath: String(cString: directory)))
    } catch {
        print("cannot write the seeds: \(error)")
        exit(1)
    }
    exit(0)
}

enum MakeSeeds {
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static func write(to directory: URL) throws {

        let purchases = [
            LocalReceipt.InAppPurchase(
                quantity: 1, productID: "com.example.pro.monthly", transactionID: "2000000123456789",
                purchaseDate: date(1_708_709_236), originalTransactionID: "2000000123400000",
                originalPurchaseDate: date(1_700_000_000), productType: 3, expiresDate: date(1_711_301_236),
                webOrderLineItemID: "2000000054321098", isTrialPeriod: false, isInIntroOfferPeriod: true,
                promotionalOfferID: "spring"
            ),
            LocalReceipt.InAppPurchase(
                quantity: 3, productID: "com.example.coins", transactionID: "2000000123456790",
                purchaseDate: date(1_708_709_236.25), originalTransactionID: "2000000123456790",
                originalPurchaseDate: date(1_708_709_236.25)
            ),
            LocalReceipt.InAppPurchase(
                quantity: 1, productID: "com.example.lifetime", transactionID: "0", purchaseDate: date(1_600_000_000),
                cancellationDate: date(1_600_100_000), isTrialPeriod: true
            ),
        ]
        let receipts = [
            LocalReceipt(
                environment: "Production", appItemID: 1_234_567_890, bundleID: "com.example.app", applicationVersion: "42",
                opaqueValue: [1, 2, 3, 4, 5, 6, 7, 8], sha1Hash: Array(repeating: 0xAB, count: 20),
                creationDate: date(1_708_709_400), originalPurchaseDate: date(1_375_340_400),
                originalApplicationVersion: "1.0", inApp: purchases
            ),
            LocalReceipt(environment: "Xcode", appItemID: 0, bundleID: "com.example.xcode", applicationVersion: "1",
                         expirationDate: date(64_092_211_200), inApp: [purchases[0]]),
            LocalReceipt(environment: "ProductionSandbox", bundleID: "b"),
        ]

        var seeds: [(String, [UInt8])] = []
        for (index, receipt) in receipts.enumerated() {
            seeds.append(("encoder-\(index).der", LocalReceiptEncoder.appReceipt(receipt)))
            seeds.append(("encoder-\(index).ber", LocalReceiptEncoder.appReceipt(receipt, encoding: .indefiniteLengthBER(chunkSize: 40))))
            seeds.append(("encoder-\(index).b64", Array(LocalReceiptEncoder.base64(receipt).utf8)))
            var legacy = receipt
            legacy.format = .transactionReceipt
            legacy.environment = index == 0 ? nil : "Sandbox"
            seeds.append(("encoder-\(index).ios6.txt", LocalReceiptEncoder.transactionReceipt(legacy)))
            seeds.append(("encoder-\(index).ios6.b64", Array(LocalReceiptEncoder.base64(legacy).utf8)))
        }
        for (name, bytes) in seeds {
            try Data(bytes).write(to: directory.appendingPathComponent(name))
        }
        print("wrote \(seeds.count) encoder seeds")
    }
}
