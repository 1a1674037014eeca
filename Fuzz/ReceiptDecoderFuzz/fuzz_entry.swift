// libFuzzer entry for the local receipt decoder. Not a SwiftPM target: compiled together with
// Sources/AppStoreReceipts/LocalReceipt/*.swift by Fuzz/run-receipt-decoder-fuzz.sh.
//
// Every input is fed three ways (DER, raw receipt bytes, base64 text). The decoder must return
// or throw, never trap; ASan and libFuzzer's malloc/rss limits catch overreads and runaway
// allocation. On top, every receipt that does decode must satisfy the invariants the job
// relies on: a one-line error text for failures, valid `inspect` JSON, and an encoder round
// trip that gives back the same values. A broken invariant traps, which libFuzzer reports as
// a crash with the input saved.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func receiptDecoderFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    ReceiptDecoderFuzz.check { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(der: bytes) }
    ReceiptDecoderFuzz.check { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(bytes: bytes) }
    ReceiptDecoderFuzz.check { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(base64Text: bytes) }
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

    static func checkInspectJSON(_ receipt: LocalReceipt) {
        for pretty in [true, false] {
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

    /// Drops what only decoding fills in; purchases sorted, since a SET has no order.
    static func normalized(_ receipt: LocalReceipt) -> LocalReceipt {
        var copy = receipt
        copy.containerByteCount = nil
        copy.bundleIDValueDER = nil
        copy.inApp.sort { String(describing: $0) < String(describing: $1) }
        return copy
    }
}
