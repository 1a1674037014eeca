/// The methods the job's clients use: verifyReceipt is a POST, the App Store Server API's reads are GETs.
public enum HTTPMethod: String, Sendable {
    case get = "GET"
    case post = "POST"
}
