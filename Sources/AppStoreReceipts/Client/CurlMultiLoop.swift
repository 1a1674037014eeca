import CLibCurl
import Dispatch
import Foundation
import Glibc
import Synchronization

/// The thread that drives one CURLM handle: takes submitted requests, runs `curl_multi_perform` and
/// `curl_multi_poll`, and finishes each request's `CurlCompletion` when libcurl reports it done.
///
/// Threading: `@unchecked Sendable` because it owns C handles that only its own thread touches. The
/// exceptions are `submit`/`cancel` (they touch only the `inbox` mutex and call `curl_multi_wakeup`,
/// which libcurl documents as callable from any thread) and `shutdown`, which cleans up the handles
/// after the thread has exited. The thread is the transport's own `Thread`, never a Dispatch queue:
/// it spends its life blocked in `poll` (DESIGN, "Concurrency on Linux").
final class CurlMultiLoop: @unchecked Sendable {
    /// What lanes hand to the loop thread.
    private struct Inbox {
        var requests: [CurlRequest] = []
        var cancelled: [CurlCompletion] = []
        var stopping = false
    }

    let threadName: String
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private let exited = DispatchSemaphore(value: 0)
    private let easyHandleCount = Atomic(0)
    private let transferCount = Atomic(0)

    // Loop thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Reset easy handles for the next request; connections themselves live in the multi handle's cache.
    private var idle: [UnsafeMutableRawPointer] = []

    private static let serial = Atomic(0)

    /// Starts the loop thread; nil when libcurl cannot be initialised (out of memory, broken install).
    /// - Parameter maxConnectionsPerHost: the in-flight cap: with HTTP/1.1 every request in flight needs
    ///   its own connection, and more than this would queue inside libcurl.
    init?(maxConnectionsPerHost: Int) {
        guard CurlGlobal.isInitialized, let multi = curl_multi_init() else { return nil }
        self.multi = multi
        _ = recon_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        // The default cache size follows the number of transfers added, so a quiet moment would close
        // the idle connections; room for both endpoints' hosts keeps them for the next burst.
        _ = recon_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 2 * maxConnectionsPerHost)
        // Unique per transport and within Linux's 15-byte thread name limit, so tests can find it.
        threadName = "curl-loop-\(Self.serial.add(1, ordering: .relaxed).newValue % 100_000)"
        let thread = Thread { [self] in run() }
        thread.name = threadName
        thread.start()
    }

    /// Requests submitted and easy handles alive (pooled or in use) so far.
    var counts: (transfers: Int, easyHandles: Int) {
        (transferCount.load(ordering: .relaxed), easyHandleCount.load(ordering: .relaxed))
    }

    func submit(_ request: CurlRequest) {
        inbox.withLock { $0.requests.append(request) }
        curl_multi_wakeup(multi)
    }

    /// Abandons the transfer of `completion` (the lane stopped waiting for it).
    func cancel(_ completion: CurlCompletion) {
        inbox.withLock { $0.cancelled.append(completion) }
        curl_multi_wakeup(multi)
    }

    /// Stops the thread, fails whatever is still in flight, and frees every handle. Called once, by the
    /// transport's `deinit`, when no lane can be inside `submit` any more.
    func shutdown() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
        exited.wait()
        curl_multi_cleanup(multi)
    }

    // MARK: Loop thread

    private func run() {
        nameCurrentThread(threadName)
        var running: Int32 = 0
        while true {
            let (requests, cancelled, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.requests.removeAll(keepingCapacity: true)
                    inbox.cancelled.removeAll()
                }
                return (inbox.requests, inbox.cancelled, inbox.stopping)
            }
            if stopping { break }
            for request in requests { start(request) }
            for completion in cancelled { abandon(completion) }
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            // Returns on socket activity, libcurl's next timeout, or `curl_multi_wakeup`; the 1 s cap is
            // only a safety net.
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        let handles = active.count + idle.count
        let leftOver = inbox.withLock { $0.requests }
        for request in leftOver { request.completion.finish(.failed(.connectionFailed(detail: "transport shut down"))) }
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            transfer.completion.finish(.failed(.connectionFailed(detail: "transport shut down")))
            curl_easy_cleanup(easy)
        }
        active.removeAll()
        for easy in idle { curl_easy_cleanup(easy) }
        easyHandleCount.subtract(handles, ordering: .relaxed)
        idle.removeAll()
        exited.signal()
    }

    /// Gives the kernel's thread name (`top -H`, `/proc/self/task/*/comm`): Foundation's `Thread.name`
    /// stays inside Foundation on Linux, and `pthread_setname_np` is hidden behind `_GNU_SOURCE`.
    private func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = name.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }

    private func start(_ request: CurlRequest) {
        transferCount.add(1, ordering: .relaxed)
        let easy: UnsafeMutableRawPointer
        if let reused = idle.popLast() {
            easy = reused
        } else if let created = curl_easy_init() {
            easyHandleCount.add(1, ordering: .relaxed)
            easy = created
        } else {
            request.completion.finish(.failed(.connectionFailed(detail: "libcurl could not create a transfer")))
            return
        }
        let transfer = CurlTransfer(easy: easy, completion: request.completion)
        let configured = transfer.configure(request)
        guard configured == CURLE_OK else {
            recycle(easy)
            request.completion.finish(.failed(VerifyReceiptTransportFailure(curlCode: configured, osErrno: 0)))
            return
        }
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
            recycle(easy)
            request.completion.finish(.failed(.connectionFailed(detail: "libcurl refused the transfer")))
            return
        }
        active[easy] = transfer
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active[easy]
            else { continue }
            // Read the result before removing the handle: the message belongs to the handle.
            let code = recon_curl_message_result(message)
            let result: HTTPExchangeResult = code == CURLE_OK ? .response(transfer.reply()) : .failed(transfer.failure(code))
            curl_multi_remove_handle(multi, easy)
            retire(easy)
            transfer.completion.finish(result)
        }
    }

    private func abandon(_ completion: CurlCompletion) {
        guard let easy = active.first(where: { $0.value.completion === completion })?.key else { return }
        curl_multi_remove_handle(multi, easy)
        retire(easy)
        completion.finish(.failed(.timedOut))
    }

    /// Takes a finished transfer's handle out of the table (freeing its header list) and pools it.
    private func retire(_ easy: UnsafeMutableRawPointer) {
        recycle(easy)
        active[easy] = nil
    }

    /// Clears the handle's options, its callbacks' context pointer included, before anyone reuses it.
    private func recycle(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        idle.append(easy)
    }
}
