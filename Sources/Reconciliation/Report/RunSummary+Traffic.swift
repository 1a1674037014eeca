import Foundation

/// A run's Apple traffic in the words of the service that answered it: verifyReceipt's requests,
/// statuses and 21007/21008 re-routes, or the App Store Server API's requests per endpoint, HTTP
/// statuses with `errorCode`s and hops to the other environment after a 404.
extension RunSummary {
    /// Whether the App Store Server API answered this run: its backend, or, in a summary stored before
    /// the backend was recorded, requests to an endpoint of that API.
    public var usedServerAPI: Bool {
        if let backend { return backend == "server-api" }
        return appleRequestsByEndpoint?.keys.contains { $0 != "verify_receipt" } ?? false
    }

    /// The name of the service, as the reports say it.
    public var appleServiceName: String { usedServerAPI ? "App Store Server API" : "verifyReceipt" }

    /// `404/4040010` as `HTTP 404 (errorCode 4040010)`; `transport` as `no answer (transport error)`.
    public static func serverAPIAnswerName(_ key: String) -> String {
        if key == "transport" { return "no answer (transport error)" }
        let parts = key.split(separator: "/", maxSplits: 1)
        return "HTTP \(parts[0])" + (parts.count > 1 ? " (errorCode \(parts[1]))" : "")
    }

    /// The answers, HTTP 200 first, then by status and code.
    public var serverAPIAnswerList: [(name: String, requests: Int)] {
        let answers = serverAPIAnswers ?? [:]
        let keys = answers.keys.sorted { a, b in
            let (ka, kb) = (Self.answerOrder(a), Self.answerOrder(b))
            return ka == kb ? a < b : ka < kb
        }
        return keys.map { (Self.serverAPIAnswerName($0), answers[$0]!) }
    }

    private static func answerOrder(_ key: String) -> Int {
        key == "transport" ? 1000 : Int(key.prefix(3)) ?? 999
    }

    /// The traffic lines of `text`.
    var trafficLines: [String] {
        var traffic: String
        if usedServerAPI {
            let endpoints = appleRequestsByEndpoint.map { $0.isEmpty ? "" : " (\(Self.list($0)))" } ?? ""
            traffic =
                "App Store Server API: \(appleRequests) requests\(endpoints), \(appleRetries) retries, "
                + "\(appleThrottled) throttled (HTTP 429), \(appleHops) asked the other environment after a 404"
        } else {
            traffic =
                "verifyReceipt: \(appleRequests) requests, \(appleRetries) retries, \(appleThrottled) throttled "
                + "(HTTP 429), \(appleHops) re-routes (21007/21008)"
        }
        if let p50 = latencyP50Milliseconds, let p95 = latencyP95Milliseconds {
            traffic += String(format: "; latency p50 %.0f ms, p95 %.0f ms", p50, p95)
        }
        var lines = [traffic]
        if usedServerAPI {
            let answers = serverAPIAnswerList.map { "\($0.name) \($0.requests)" }
            // Summaries stored before the answers were counted have none to show.
            if serverAPIAnswers != nil {
                lines.append("  answers: " + (answers.isEmpty ? "none" : answers.joined(separator: ", ")))
            }
        }
        return lines
    }
}
