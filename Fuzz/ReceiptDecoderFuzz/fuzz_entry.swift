// libFuzzer entry for the local receipt decoder. Not a SwiftPM target: compiled together with
// Sources/AppStoreReceipts/LocalReceipt/*.swift by Fuzz/run-receipt-decoder-fuzz.sh.
//
// Every input is fed three ways (DER, raw receipt bytes, base64 text). The decoder must return
// or throw, never trap; ASan and libFuzzer's malloc/rss limits catch overreads and runaway
// allocation. On top, every receipt that does decode must satisfy the invariants the job
// relies on: a one-line error text for failures, valid `inspect` JSON, and an encoder round
// trip that gives back the same values. A broken invariant traps, which libFuzzer reports as
// a crash with the input saved.
//
// Byte mutations rarely get past nested DER lengths, so each input is also read as a recipe
// (structure-aware fuzzing): field values drawn from the bytes build a `LocalReceipt`, which
// is encoded (DER, chunked BER or iOS 6) and must decode to exactly the same values.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func receiptDecoderFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    ReceiptDecoderFuzz.check { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(der: bytes) }
    ReceiptDecoderFuzz.check { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(bytes: bytes) }
    ReceiptDecoderFuzz.check { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(base64Text: bytes) }
    ReceiptDecoderFuzz.checkRecipe(bytes)
    return 0
}

enum ReceiptDecoderFuzz {
    static func check(_ decode: () throws(ReceiptDecodingError) -> LocalReceipt) {
        let receipt: LocalReceipt
        do {
            receipt = try decode()
        } catch {
            let text = error.description
            precondition(!text.isEmpty && !text.contains("\n"), "error description is not one line")
            return
        }
        checkInspectJSON(receipt)
        checkRoundTrip(receipt)
    }

    static func checkInspectJSON(_ receipt: LocalReceipt, pretty: [Bool] = [true, false]) {
        for pretty in pretty {
            let json = receipt.inspectJSON(pretty: pretty)
            guard let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] else {
                preconditionFailure("inspect JSON does not parse")
            }
            precondition(object.count == 7, "inspect JSON has the wrong keys")
            precondition(object["bundle_id"] as? String == receipt.bundleID, "inspect JSON loses the bundle id")
        }
    }

    static func checkRoundTrip(_ receipt: LocalReceipt) {
        let encoded = LocalReceiptEncoder.base64(receipt)
        let decoded: LocalReceipt
        do {
            decoded = try LocalReceiptDecoder.decode(base64: encoded)
        } catch {
            preconditionFailure("re-encoded receipt does not decode: \(error)")
        }
        precondition(normalized(decoded) == normalized(receipt), "re-encoded receipt decodes differently")
        if receipt.format == .appReceipt {
            let ber = LocalReceiptEncoder.appReceipt(receipt, encoding: .indefiniteLengthBER(chunkSize: 7))
            guard let fromBER = try? LocalReceiptDecoder.decode(der: ber) else {
                preconditionFailure("BER re-encoding does not decode")
            }
            precondition(normalized(fromBER) == normalized(receipt), "BER re-encoding decodes differently")
        }
    }

    /// Drops what only decoding fills in; purchases as a multiset, since a SET has no order.
    static func normalized(_ receipt: LocalReceipt) -> Normalized {
        var copy = receipt
        copy.containerByteCount = nil
        copy.bundleIDValueDER = nil
        let purchases = Dictionary(copy.inApp.map { ($0, 1) }, uniquingKeysWith: +)
        copy.inApp = []
        return Normalized(receipt: copy, purchases: purchases)
    }

    struct Normalized: Equatable {
        var receipt: LocalReceipt
        var purchases: [LocalReceipt.InAppPurchase: Int]
    }

    /// Builds a receipt from `bytes`, encodes it, and requires the decoder to give it back.
    static func checkRecipe(_ bytes: [UInt8]) {
        var recipe = Recipe(bytes: bytes)
        let mode = recipe.byte() % 3
        let receipt = mode == 2 ? recipe.transactionReceipt() : recipe.appReceipt()
        let encoded: [UInt8]
        switch mode {
        case 0: encoded = LocalReceiptEncoder.appReceipt(receipt)
        case 1: encoded = LocalReceiptEncoder.appReceipt(
            receipt, encoding: .indefiniteLengthBER(chunkSize: Int(recipe.byte()) + 1))
        default: encoded = LocalReceiptEncoder.transactionReceipt(receipt)
        }
        let decoded: LocalReceipt
        do {
            decoded = try LocalReceiptDecoder.decode(bytes: encoded)
        } catch {
            preconditionFailure("encoded recipe does not decode: \(error)")
        }
        var expected = receipt
        if mode == 2 { expected.environment = expected.environment ?? "Production" }
        precondition(normalized(decoded) == normalized(expected), "encoded recipe decodes differently")
        checkInspectJSON(decoded, pretty: [false])
    }
}

/// Field values drawn from fuzz bytes (zeros once they run out), shaped to what the receipt
/// formats can carry: no empty strings (they read as absent), dates to the millisecond within
/// years 1 to 9999, and integer web order line item ids in app receipts.
struct Recipe {
    let bytes: [UInt8]
    var position = 0

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func present() -> Bool { byte() & 1 == 1 }

    mutating func int64() -> Int64 {
        var value: Int64 = 0
        for _ in 0 ..< Int(byte() % 9) { value = value << 8 | Int64(byte()) }
        return present() ? -value : value
    }

    mutating func string() -> String? {
        guard present() else { return nil }
        let count = Int(byte() % 64) + 1
        let utf8 = (0 ..< count).map { _ in byte() }
        let text = String(decoding: utf8, as: UTF8.self)
        return text.isEmpty ? nil : text
    }

    mutating func data() -> [UInt8]? {
        guard present() else { return nil }
        return (0 ..< Int(byte() % 32)).map { _ in byte() }
    }

    mutating func date() -> Date? {
        guard present() else { return nil }
        let earliest: Int64 = -62_135_596_800_000
        let span: UInt64 = 253_402_300_799_999 + 62_135_596_800_000 + 1
        let milliseconds = earliest + Int64(UInt64(bitPattern: int64()) % span)
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    mutating func purchase(appReceipt: Bool) -> LocalReceipt.InAppPurchase {
        LocalReceipt.InAppPurchase(
            quantity: present() ? Int(int64()) : nil,
            productID: string(),
            transactionID: string(),
            purchaseDate: date(),
            originalTransactionID: string(),
            originalPurchaseDate: date(),
            productType: appReceipt && present() ? Int(int64()) : nil,
            expiresDate: date(),
            webOrderLineItemID: appReceipt ? (present() ? String(int64()) : nil) : string(),
            cancellationDate: date(),
            isTrialPeriod: present() ? present() : nil,
            isInIntroOfferPeriod: present() ? present() : nil,
            promotionalOfferID: appReceipt ? string() : nil
        )
    }

    mutating func appReceipt() -> LocalReceipt {
        LocalReceipt(
            format: .appReceipt,
            environment: string(),
            appItemID: present() ? int64() : nil,
            bundleID: string(),
            applicationVersion: string(),
            opaqueValue: data(),
            sha1Hash: data(),
            creationDate: date(),
            originalPurchaseDate: date(),
            originalApplicationVersion: string(),
            expirationDate: date(),
            inApp: (0 ..< Int(byte() % 5)).map { _ in purchase(appReceipt: true) }
        )
    }

    mutating func transactionReceipt() -> LocalReceipt {
        LocalReceipt(
            format: .transactionReceipt,
            environment: string(),
            appItemID: present() ? int64() : nil,
            bundleID: string(),
            applicationVersion: string(),
            inApp: [purchase(appReceipt: false)]
        )
    }
}
