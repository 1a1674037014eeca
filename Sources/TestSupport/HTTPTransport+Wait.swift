import AppStoreReceipts
import Dispatch
import Foundation
import Synchronization

extension HTTPTransport {
    /// Sends `request` and waits for its outcome: how tests ask a transport one thing at a time. The
    /// request starts at once unless `notBefore` (an instant on `clock`) says later.
    public func resultNow(
        of request: HTTPClientRequest, notBefore: Duration? = nil,
        on clock: any ThrottleClock = SystemThrottleClock()
    ) -> HTTPExchangeResult {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<HTTPExchangeResult?>(nil)
        send(request, notBefore: notBefore ?? clock.now(), on: clock) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    /// A POST of `body` to `url`, sent at once and waited for.
    public func postNow(
        _ url: URL, body: Data, headers: [String: String], timeout: Duration
    ) -> HTTPExchangeResult {
        resultNow(of: HTTPClientRequest(method: .post, url: url, body: body, headers: headers, timeout: timeout))
    }
}
