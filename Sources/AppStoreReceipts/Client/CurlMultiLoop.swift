import CLibCurl
import Dispatch
import Foundation
import Glibc
import Synchronization

/// The thread that drives one CURLM handle: takes submitted requests, lets libcurl work on the sockets
/// that are ready, and finishes each request's `CurlCompletion` when libcurl reports it done.
///
/// Why `curl_multi_socket_action` over an epoll set rather than `curl_multi_poll`/`curl_multi_perform`:
/// those two visit every connection and every transfer on each wake-up, and at 64 in flight that was
/// most of the transport's CPU. With epoll a wake-up
/// costs in proportion to the sockets that are ready. libcurl says which sockets to watch through
/// CURLMOPT_SOCKETFUNCTION, and when to be called regardless through CURLMOPT_TIMERFUNCTION (timeouts,
/// and "now" after a transfer was added). Requests arrive with the instant their throttle token is due;
/// the loop keeps early ones in `scheduled` and sleeps until the next start, libcurl's timer, or a ready
/// socket. Lanes wake it through an eventfd in the same set only when a request must start before the
/// loop would wake anyway.
///
/// Threading: `@unchecked Sendable` because it owns C handles that only its own thread touches. The
/// exceptions are `submit` and `abandonWaitingRequests`, which touch only the `inbox` mutex and signal the eventfd, and
/// `shutdown`, which frees the handles after the thread has exited. The thread is the transport's own
/// `Thread`, never a Dispatch queue: it spends its life blocked in `epoll_wait` (DESIGN, "Concurrency on
/// Linux").
final class CurlMultiLoop: @unchecked Sendable {
    private enum LoopState {
        /// It looks at the inbox before it sleeps again.
        case awake
        /// Sleeping (the gathering period, then `epoll_wait`) until this instant (nil: until signalled).
        case asleep(until: ContinuousClock.Instant?)
    }

    /// What lanes hand to the loop thread, and whether it must be woken to see it.
    private struct Inbox {
        var requests: [CurlRequest] = []
        var stopping = false
        /// Set by `abandonWaitingRequests`, until the loop has seen it.
        var abandoning = false
        var loop = LoopState.awake
        var isEmpty: Bool { requests.isEmpty && !stopping && !abandoning }
    }

    let threadName: String
    private let multi: UnsafeMutableRawPointer
    private let epoll: Int32
    private let wakeFD: Int32
    private let inbox = Mutex(Inbox())
    private let exited = DispatchSemaphore(value: 0)
    private let easyHandleCount = Atomic(0)
    private let transferCount = Atomic(0)

    // Loop thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Requests handed over before their throttle token is due, in order of start.
    private var scheduled: [CurlRequest] = []
    /// Once set, requests whose start is still to come fail unsent (`abandonWaitingRequests`).
    private var abandonsWaitingRequests = false
    /// Prepared easy handles for the next request; connections themselves live in the multi handle's cache.
    private var idle: [UnsafeMutableRawPointer] = []
    private let headerLists = CurlHeaderLists()
    /// When libcurl wants `socket_action(CURL_SOCKET_TIMEOUT)`; nil: no timer.
    private var timerDeadline: ContinuousClock.Instant?
    private var gathering = GatheringPeriod.long
    private var lastWake = ContinuousClock.now
    /// By descriptor number: what each socket is registered for in the epoll set (0: not in it), and
    /// whether libcurl wants it watched. libcurl asks to watch a kept-alive connection at the start of
    /// each request and to forget it at the end; the registration is kept across that gap instead
    /// (two `epoll_ctl` per request saved), and only a readiness libcurl did not ask for removes it.
    /// The close callback keeps both exact when libcurl closes a socket, whose number may be reused.
    private var registered: [Int32] = []
    private var wanted: [Bool] = []

    private static let serial = Atomic(0)

    /// Starts the loop thread; nil when libcurl or the kernel refuses the handles (out of memory or
    /// descriptors, a broken install).
    /// - Parameter maxConnectionsPerHost: the in-flight cap: with HTTP/1.1 every request in flight needs
    ///   its own connection, and more than this would queue inside libcurl.
    init?(maxConnectionsPerHost: Int) {
        let epoll = recon_epoll_create()
        let wakeFD = recon_eventfd_create()
        guard CurlGlobal.isInitialized, epoll >= 0, wakeFD >= 0, recon_epoll_watch(epoll, wakeFD, CURL_POLL_IN, 0) == 0,
            let multi = curl_multi_init()
        else {
            if epoll >= 0 { close(epoll) }
            if wakeFD >= 0 { close(wakeFD) }
            return nil
        }
        self.multi = multi
        self.epoll = epoll
        self.wakeFD = wakeFD
        // Unique per transport and within Linux's 15-byte thread name limit, so tests can find it.
        threadName = "curl-loop-\(Self.serial.add(1, ordering: .relaxed).newValue % 100_000)"

        _ = recon_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        // The default cache size follows the number of transfers added, so a quiet moment would close
        // the idle connections; room for both endpoints' hosts keeps them for the next burst.
        _ = recon_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 2 * maxConnectionsPerHost)
        // Unretained: libcurl calls these only from inside curl calls made by the loop thread (which holds
        // the loop) or by `shutdown` (whose caller does).
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = recon_curl_multi_setopt_socket_callback(multi) { _, socket, what, context, _ in
            guard let context else { return -1 }
            return Unmanaged<CurlMultiLoop>.fromOpaque(context).takeUnretainedValue().watch(socket, what)
        }
        _ = recon_curl_multi_setopt_ptr(multi, CURLMOPT_SOCKETDATA, context)
        _ = recon_curl_multi_setopt_timer_callback(multi) { _, milliseconds, context in
            guard let context else { return -1 }
            Unmanaged<CurlMultiLoop>.fromOpaque(context).takeUnretainedValue().timerDeadline =
                milliseconds < 0 ? nil : .now + .milliseconds(milliseconds)
            return 0
        }
        _ = recon_curl_multi_setopt_ptr(multi, CURLMOPT_TIMERDATA, context)

        let thread = Thread { [self] in run() }
        thread.name = threadName
        thread.start()
    }

    /// Requests submitted and easy handles alive (pooled or in use) so far.
    var counts: (transfers: Int, easyHandles: Int) {
        (transferCount.load(ordering: .relaxed), easyHandleCount.load(ordering: .relaxed))
    }

    func submit(_ request: CurlRequest) {
        wake(unlessAwakeBy: request.start) { $0.requests.append(request) }
    }

    /// Fails every request still waiting for its start, now and from now on, without sending it; those
    /// already sent go on. A stopping client's throttle waits end here.
    func abandonWaitingRequests() {
        wake(unlessAwakeBy: nil) { $0.abandoning = true }
    }

    /// Stops the thread, fails whatever is still in flight, and frees every handle. Called once, by the
    /// transport's `deinit`, when no lane can be inside `submit` any more.
    func shutdown() {
        wake(unlessAwakeBy: nil) { $0.stopping = true }
        exited.wait()
        curl_multi_cleanup(multi)
        close(epoll)
        close(wakeFD)
    }

    /// Changes the inbox, and signals the loop if it sleeps and would not wake by `instant` on its own
    /// (nil: signal whenever it sleeps). A throttled request is handed over ahead of its start, usually
    /// while the loop sleeps until an earlier one's, so most submissions need no signal at all.
    private func wake(unlessAwakeBy instant: ContinuousClock.Instant?, _ change: (inout Inbox) -> Void) {
        let signal = inbox.withLock { inbox -> Bool in
            change(&inbox)
            guard case .asleep(let wakesAt) = inbox.loop else { return false }
            if let instant, let wakesAt, wakesAt <= instant { return false }
            inbox.loop = .awake  // woken: later submitters need not signal again
            return true
        }
        if signal { recon_eventfd_signal(wakeFD) }
    }

    // MARK: Loop thread

    private func run() {
        KernelThreadName.set(threadName)
        let capacity = 256
        var descriptors = [Int32](repeating: 0, count: capacity)
        var flags = [Int32](repeating: 0, count: capacity)
        var running: Int32 = 0
        while true {
            let (requests, stopping, abandoning) = inbox.withLock { inbox in
                defer {
                    inbox.requests.removeAll(keepingCapacity: true)
                    inbox.abandoning = false
                }
                return (inbox.requests, inbox.stopping, inbox.abandoning)
            }
            if stopping {
                for request in requests + scheduled {
                    request.completion.finish(.failed(.connectionFailed(detail: "transport shut down")))
                }
                scheduled.removeAll()
                break
            }
            if abandoning {
                abandonsWaitingRequests = true
                for request in scheduled { request.completion.finish(Self.unsent) }
                scheduled.removeAll()
            }
            for request in requests { schedule(request) }
            gathering = GatheringPeriod.after(requests.lazy.map(\.waitedForToken), current: gathering)
            startDue()
            if let deadline = timerDeadline, deadline <= .now {
                timerDeadline = nil
                _ = curl_multi_socket_action(multi, recon_curl_socket_timeout, 0, &running)
            }
            collectFinished()

            // Sleep until libcurl's timer or the next start, unless lanes handed over more meanwhile.
            let nextStart = scheduled.first?.start
            let wakesAt = timerDeadline.map { timer in nextStart.map { min(timer, $0) } ?? timer } ?? nextStart
            let sleeps = inbox.withLock { inbox -> Bool in
                guard inbox.isEmpty else { return false }
                inbox.loop = .asleep(until: wakesAt)
                return true
            }
            guard sleeps else { continue }
            let awake = ContinuousClock.now - lastWake
            if awake < gathering {
                Self.nap(for: gathering - awake)
            }
            let ready = recon_epoll_wait(
                epoll, &descriptors, &flags, Int32(capacity), Self.milliseconds(until: wakesAt))
            inbox.withLock { $0.loop = .awake }
            lastWake = .now
            for index in 0..<max(0, Int(ready)) {
                if descriptors[index] == wakeFD {
                    recon_eventfd_drain(wakeFD)
                } else if !isUnwanted(descriptors[index]) {
                    _ = curl_multi_socket_action(multi, descriptors[index], flags[index], &running)
                }
            }
        }
        let handles = active.count + idle.count
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            transfer.completion.finish(.failed(.connectionFailed(detail: "transport shut down")))
            curl_easy_cleanup(easy)
        }
        active.removeAll()
        for easy in idle { curl_easy_cleanup(easy) }
        idle.removeAll()
        headerLists.freeAll()
        easyHandleCount.subtract(handles, ordering: .relaxed)
        exited.signal()
    }

    private static let unsent = HTTPExchangeResult.failed(.connectionFailed(detail: "not sent: the client stopped"))

    /// `epoll_wait`'s timeout until `instant` (-1: none), rounded up so that it has passed on return:
    /// a request starts up to a millisecond late, never early.
    private static func milliseconds(until instant: ContinuousClock.Instant?) -> Int32 {
        guard let instant else { return -1 }
        let remaining = instant - .now
        guard remaining > .zero else { return 0 }
        let components = remaining.components
        let milliseconds =
            components.seconds * 1000 + (components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    /// Starts `request` now if its time has come, else keeps it in `scheduled`, in order of start.
    private func schedule(_ request: CurlRequest) {
        guard request.start > .now else { return start(request) }
        guard !abandonsWaitingRequests else { return request.completion.finish(Self.unsent) }
        // Tokens are handed out in order, so this is nearly always an append.
        var index = scheduled.endIndex
        while index > scheduled.startIndex, scheduled[index - 1].start > request.start { index -= 1 }
        scheduled.insert(request, at: index)
    }

    /// Starts every scheduled request whose time has come.
    private func startDue() {
        guard let first = scheduled.first, first.start <= .now else { return }
        let now = ContinuousClock.now
        let due = scheduled.prefix { $0.start <= now }.count
        for index in 0..<due { start(scheduled[index]) }
        // After the starts, with no slice of `scheduled` alive: the array is unique, so the rest move
        // down in one memmove. Removing while a slice is kept copies every waiting request, retains
        // and all, on each turn.
        scheduled.removeFirst(due)
    }

    /// libcurl's socket callback: watches `socket` for `what`, or stops watching it.
    private func watch(_ socket: Int32, _ what: Int32) -> Int32 {
        guard socket >= 0 else { return -1 }
        let index = Int(socket)
        if index >= registered.count {
            registered += repeatElement(0, count: index + 1 - registered.count)
            wanted += repeatElement(false, count: index + 1 - wanted.count)
        }
        wanted[index] = what != CURL_POLL_REMOVE
        guard what != CURL_POLL_REMOVE, registered[index] != what else { return 0 }
        let result = recon_epoll_watch(epoll, socket, what, registered[index] != 0 ? 1 : 0)
        registered[index] = result == 0 ? what : 0
        return result == 0 ? 0 : -1
    }

    /// A ready socket libcurl no longer watches (an idle kept-alive connection the server closed, say):
    /// it leaves the set now, or level-triggered epoll would report it again at once.
    private func isUnwanted(_ socket: Int32) -> Bool {
        let index = Int(socket)
        guard index < wanted.count, !wanted[index] else { return false }
        if registered[index] != 0 {
            _ = recon_epoll_watch(epoll, socket, CURL_POLL_REMOVE, 1)
            registered[index] = 0
        }
        return true
    }

    /// libcurl's close callback: forgets the socket before its number can be reused, then closes it.
    private func closeSocket(_ socket: Int32) -> Int32 {
        let index = Int(socket)
        if index >= 0, index < registered.count {
            if registered[index] != 0 { _ = recon_epoll_watch(epoll, socket, CURL_POLL_REMOVE, 1) }
            registered[index] = 0
            wanted[index] = false
        }
        return close(socket)
    }

    private func start(_ request: CurlRequest) {
        transferCount.add(1, ordering: .relaxed)
        let easy: UnsafeMutableRawPointer
        if let reused = idle.popLast() {
            easy = reused
        } else if let created = curl_easy_init() {
            let closeContext = Unmanaged.passUnretained(self).toOpaque()
            guard
                CurlTransfer.prepare(
                    created, closeContext: closeContext,
                    close: { context, socket in
                        guard let context else { return close(socket) }
                        return Unmanaged<CurlMultiLoop>.fromOpaque(context).takeUnretainedValue().closeSocket(socket)
                    }) == CURLE_OK
            else {
                curl_easy_cleanup(created)
                request.completion.finish(.failed(.connectionFailed(detail: "libcurl could not prepare a transfer")))
                return
            }
            easyHandleCount.add(1, ordering: .relaxed)
            easy = created
        } else {
            request.completion.finish(.failed(.connectionFailed(detail: "libcurl could not create a transfer")))
            return
        }
        let shared = headerLists.list(for: request.headers)
        let owned = shared == nil ? CurlHeaderLists.makeList(request.headers) : nil
        let transfer = CurlTransfer(
            easy: easy, completion: request.completion, ownedHeaderList: owned, answerLimit: request.answerLimit)
        // In the table before libcurl can call back about it.
        active[easy] = transfer
        var configured = CURLE_OUT_OF_MEMORY
        if let headerList = shared ?? owned { configured = transfer.configure(request, headerList: headerList) }
        guard configured == CURLE_OK else {
            retire(easy)
            request.completion.finish(.failed(VerifyReceiptTransportFailure(curlCode: configured, osErrno: 0)))
            return
        }
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
            retire(easy)
            request.completion.finish(.failed(.connectionFailed(detail: "libcurl refused the transfer")))
            return
        }
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = active[easy]
            else { continue }
            // Read the result before removing the handle: the message belongs to the handle.
            let code = recon_curl_message_result(message)
            let result: HTTPExchangeResult =
                code == CURLE_OK ? .response(transfer.reply()) : .failed(transfer.failure(code))
            curl_multi_remove_handle(multi, easy)
            retire(easy)
            transfer.completion.finish(result)
        }
    }

    /// Takes a finished transfer out of the table (freeing it) and pools its handle, which has left the
    /// multi handle.
    private func retire(_ easy: UnsafeMutableRawPointer) {
        active.removeValue(forKey: easy)?.detach()
        idle.append(easy)
    }

    /// Sleeps the loop thread (its own, so blocking it is the point) through the gathering period.
    private static func nap(for duration: Duration) {
        let components = duration.components
        var request = timespec(tv_sec: Int(components.seconds), tv_nsec: Int(components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
