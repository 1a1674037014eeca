import AppStoreReceipts
import Foundation
import Synchronization

/// An `HTTPTransport` that answers from a script on a `VirtualClock`: each request starts at its
/// `notBefore`, takes the script's latency, and gets the script's answer; what was sent, and when,
/// is kept for the test. So the exchange driver, the throttle and the retry rules are tested exactly
/// as they run, without a network or real time.
public final class ScriptedTransport: HTTPTransport {
    /// One request as the transport saw it.
    public struct Sent: Sendable {
        public let request: HTTPClientRequest
        /// The virtual instant it started (its `notBefore`, or when it was handed over if later).
        public let started: Duration
        /// Requests in flight once it started, itself included.
        public let inFlight: Int
    }

    /// The answer to one request and how long it takes.
    public struct Reply: Sendable {
        public var result: HTTPExchangeResult
        public var latency: Duration

        public init(_ result: HTTPExchangeResult, latency: Duration = .milliseconds(100)) {
            self.result = result
            self.latency = latency
        }

        /// An HTTP answer with a JSON body.
        public static func status(
            _ code: Int, _ body: String, headers: [String: String] = [:], latency: Duration = .milliseconds(100)
        ) -> Reply {
            Reply(.response(HTTPReply(statusCode: code, headers: headers, body: Data(body.utf8))), latency: latency)
        }
    }

    private struct State {
        var sent: [Sent] = []
        var inFlight = 0
        var cancelled = false
        /// Requests waiting for their `notBefore`, by id, with their completion.
        var waiting: [Int: HTTPCompletion] = [:]
        var nextID = 0
    }

    private let clock: VirtualClock
    private let script: @Sendable (_ request: HTTPClientRequest, _ index: Int) -> Reply
    private let state = Mutex(State())

    /// - Parameter script: the reply to the `index`-th request (0-based, in order of start).
    public init(clock: VirtualClock, script: @escaping @Sendable (_ request: HTTPClientRequest, _ index: Int) -> Reply)
    {
        self.clock = clock
        self.script = script
    }

    public var sent: [Sent] { state.withLock { $0.sent } }

    public func send(
        _ request: HTTPClientRequest, notBefore: Duration, on clock: any ThrottleClock,
        completion: @escaping HTTPCompletion
    ) {
        let id = state.withLock { state -> Int? in
            guard !state.cancelled else { return nil }
            state.nextID += 1
            state.waiting[state.nextID] = completion
            return state.nextID
        }
        guard let id else { return completion(.failed(.connectionFailed(detail: "not sent: the client stopped"))) }
        self.clock.schedule(after: notBefore - self.clock.now()) { [self] in
            guard let completion = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
            let index = state.withLock { state -> Int in
                state.inFlight += 1
                state.sent.append(Sent(request: request, started: self.clock.now(), inFlight: state.inFlight))
                return state.sent.count - 1
            }
            let answer = script(request, index)
            self.clock.schedule(after: answer.latency) { [self] in
                state.withLock { $0.inFlight -= 1 }
                completion(answer.result)
            }
        }
    }

    public func cancelWaiting() {
        let cut = state.withLock { state -> [HTTPCompletion] in
            state.cancelled = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for completion in cut { completion(.failed(.connectionFailed(detail: "not sent: the client stopped"))) }
    }
}
