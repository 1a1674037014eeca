/// A verifyReceipt model read from a JSON object with the lenient readers of
/// `AppleJSONObject+LenientFields`; reading never fails, missing fields are nil.
protocol AppleJSONDecodable {
    init(_ json: AppleJSONObject)
}
