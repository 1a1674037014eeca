import AppStoreReceipts
import Foundation

/// Decodes an inline response body.
func verifyReceiptResponse(_ json: String) throws(VerifyReceiptDecodingError) -> VerifyReceiptResponse {
    try VerifyReceiptResponse.decode(Data(json.utf8))
}

/// The instant `milliseconds` after 1970, as Apple's `*_date_ms` fields express it.
func appleDate(milliseconds: Int64) -> Date {
    Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
}

/// The outcome of decoding a body, for comparing failures in tables.
func decodingResult(_ body: Data) -> Result<VerifyReceiptResponse, VerifyReceiptDecodingError> {
    Result { () throws(VerifyReceiptDecodingError) in try VerifyReceiptResponse.decode(body) }
}
