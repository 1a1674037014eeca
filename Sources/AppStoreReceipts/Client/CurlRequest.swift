import Foundation

/// One POST handed from a lane to the curl loop thread: only values, so it crosses threads freely.
struct CurlRequest: Sendable {
    let url: String
    let body: Data
    let headers: [String: String]
    /// libcurl treats 0 as "no timeout", so this is at least 1.
    let timeoutMilliseconds: Int
    /// When the loop may start it: the throttle's token is due then.
    let start: ContinuousClock.Instant
    let completion: CurlCompletion
}
