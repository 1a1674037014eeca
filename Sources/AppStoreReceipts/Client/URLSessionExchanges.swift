import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of `URLSessionTransport`'s session: collects each task's answer as it arrives, within
/// the answer limit, and hands the outcome to the task's completion once.
///
/// A `Content-Length` above the limit cancels the task before any body byte is kept; a chunked body is
/// counted piece by piece and cancelled the moment it passes, and what was kept is dropped at once.
///
/// Measured on this toolchain's URLSession: the `.cancel` disposition is ignored (the body keeps
/// coming), so the task is cancelled explicitly; and `cancel()` waits for the session's busy work
/// queue, while the body it reads meanwhile piles up in the delegate queue's pending calls (tens of
/// megabytes per answer over loopback: docs/benchmarks.md) if the delegate queue is the one waiting. So cancels are made from a queue
/// of their own, and the delegate drops what still arrives as fast as it comes: memory stays flat,
/// though the body may keep arriving, unread, until the cancel is through (at most `--timeout`).
///
/// Threading: `@unchecked Sendable` only because `NSObject` is not `Sendable`: every mutable state is in
/// the `Mutex`, and the delegate calls (on the session's serial delegate queue) never block.
final class URLSessionExchanges: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Exchange {
        let completion: @Sendable (HTTPExchangeResult) -> Void
        var response: HTTPURLResponse?
        var body = Data()
        var tooLarge = false
    }

    private let answerLimit: AnswerSizeLimit
    private let exchanges = Mutex<[Int: Exchange]>([:])
    /// Where oversized tasks are cancelled: never the delegate queue (see above).
    private let cancels = DispatchQueue(label: "receipt-recon.urlsession.cancels")

    init(answerLimit: AnswerSizeLimit) {
        self.answerLimit = answerLimit
    }

    /// Collects `task`'s answer for `completion`; call before `resume`.
    func begin(_ task: URLSessionTask, completion: @escaping @Sendable (HTTPExchangeResult) -> Void) {
        exchanges.withLock { $0[task.taskIdentifier] = Exchange(completion: completion) }
    }

    /// Drops `task`'s exchange (its caller gave up waiting): nothing more is collected or reported.
    func forget(_ task: URLSessionTask) {
        _ = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let admitted = exchanges.withLock { exchanges -> Bool in
            guard exchanges[dataTask.taskIdentifier] != nil else { return false }
            // -1 when the length is unknown (chunked): counted as it comes instead.
            guard answerLimit.admits(contentLength: response.expectedContentLength) else {
                exchanges[dataTask.taskIdentifier]?.tooLarge = true
                return false
            }
            exchanges[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse
            return true
        }
        completionHandler(admitted ? .allow : .cancel)
        if !admitted { cancel(dataTask) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Passing the limit now: cancel (once). Already past it, or forgotten: drop it, nothing to do.
        let passing = exchanges.withLock { exchanges -> Bool in
            guard var exchange = exchanges[dataTask.taskIdentifier], !exchange.tooLarge else { return false }
            exchanges[dataTask.taskIdentifier] = nil  // unique, so the append below does not copy the body
            defer { exchanges[dataTask.taskIdentifier] = exchange }
            guard answerLimit.admits(data.count, after: exchange.body.count) else {
                exchange.tooLarge = true
                exchange.body = Data()
                return true
            }
            exchange.body.append(data)
            return false
        }
        if passing { cancel(dataTask) }
    }

    private func cancel(_ task: URLSessionDataTask) {
        cancels.async { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let result: HTTPExchangeResult
        if exchange.tooLarge {
            result = .failed(answerLimit.failure)
        } else if error == nil, let http = exchange.response {
            var headers: [String: String] = [:]
            for case (let name as String, let value as String) in http.allHeaderFields { headers[name] = value }
            result = .response(HTTPReply(statusCode: http.statusCode, headers: headers, body: exchange.body))
        } else {
            result = .failed(Self.failure(error))
        }
        exchange.completion(result)
    }

    private static func failure(_ error: (any Error)?) -> VerifyReceiptTransportFailure {
        guard let error = error as? URLError else {
            return .connectionFailed(detail: error.map { "\(type(of: $0))" } ?? "no response")
        }
        switch error.code {
        case .timedOut: return .timedOut
        case .cannotConnectToHost: return .connectionFailed(detail: "connection refused")
        case .networkConnectionLost: return .connectionFailed(detail: "connection lost")
        case .cannotFindHost, .dnsLookupFailed: return .connectionFailed(detail: "host not found")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return .connectionFailed(detail: "TLS failure (URLError \(error.code.rawValue))")
        default: return .connectionFailed(detail: "URLError \(error.code.rawValue)")
        }
    }
}
