import Glibc

/// Thin, blocking wrappers over the BSD socket calls the server needs.
///
/// Threading: every function acts on the descriptor it is given and keeps no state; the caller owns the
/// descriptor and decides which thread uses it.
enum Socket {
    /// What `waitReadable` saw first.
    enum Readiness {
        /// The socket has bytes, an end-of-file or an error for `recv` to report.
        case readable
        /// The wake pipe fired (the server is stopping or aborting).
        case woken
        case timedOut
    }

    /// Opens a listening TCP socket bound to `host:port` (`port` 0 = ephemeral).
    ///
    /// `host` is resolved with `getaddrinfo`, so numeric IPv4/IPv6 addresses and names both work; the
    /// first address that binds wins. The socket is non-blocking so that the accept loop can `poll` it
    /// together with the stop pipe and never block in `accept` after a connection vanished.
    static func listen(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> (fd: Int32, port: UInt16)
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw .invalidAddress("\(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }

        var lastError = HTTPServerError.invalidAddress(host)
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = .system("socket", errno)
                continue
            }
            // Lets a restarted simulator rebind while old connections sit in TIME_WAIT.
            setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                lastError = .system("bind \(host):\(port)", errno)
                close(fd)
                continue
            }
            guard Glibc.listen(fd, backlog) == 0 else {
                lastError = .system("listen", errno)
                close(fd)
                continue
            }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            guard let bound = localPort(fd) else {
                lastError = .system("getsockname", errno)
                close(fd)
                continue
            }
            return (fd, bound)
        }
        throw lastError
    }

    /// The local port a socket is bound to.
    static func localPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer -> UInt16? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            default:
                return nil
            }
        }
    }

    /// Accepts one pending connection; `nil` with `errno` set when there is none or it failed.
    ///
    /// The returned socket is blocking (Linux does not inherit `O_NONBLOCK` from the listener) and
    /// close-on-exec, so a `Process` spawned by the host program does not keep client connections open.
    static func accept(_ listener: Int32) -> (fd: Int32, remote: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
        }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let remote = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { describe($0, length) }
        }
        return (fd, remote)
    }

    /// `host:port` of a socket address, IPv6 hosts in brackets.
    static func describe(_ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> String {
        var host = [CChar](repeating: 0, count: 1025)
        var service = [CChar](repeating: 0, count: 32)
        let rc = getnameinfo(
            address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
            NI_NUMERICHOST | NI_NUMERICSERV
        )
        guard rc == 0 else { return "unknown" }
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Asks the kernel to stamp what `fd` receives with the instant it arrived (`receive`).
    static func stampArrivals(_ fd: Int32) {
        setOption(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1)
    }

    /// Receives into `buffer` like `recv`, with the instant the kernel received the last of those bytes
    /// (`stampArrivals`; now, if the kernel gave none): the moment a request arrived, however long the
    /// receiving thread took to be scheduled on a busy machine.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> (
        count: Int, arrived: ContinuousClock.Instant
    ) {
        // One SCM_TIMESTAMPNS message: a 16-byte header, then a timespec.
        var control = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        return withUnsafeMutableBytes(of: &control) { control in
            var message = msghdr()
            message.msg_control = control.baseAddress
            message.msg_controllen = control.count
            let count = withUnsafeMutablePointer(to: &vector) { vector in
                message.msg_iov = vector
                message.msg_iovlen = 1
                return recvmsg(fd, &message, 0)
            }
            let now = ContinuousClock.now
            guard count > 0, message.msg_controllen >= MemoryLayout<cmsghdr>.size + MemoryLayout<timespec>.size,
                message.msg_flags & Int32(MSG_CTRUNC) == 0
            else { return (count, now) }
            let header = control.load(as: cmsghdr.self)
            guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == SO_TIMESTAMPNS else { return (count, now) }
            let stamp = control.load(fromByteOffset: MemoryLayout<cmsghdr>.size, as: timespec.self)
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            let age = Duration.seconds(wall.tv_sec - stamp.tv_sec) + .nanoseconds(wall.tv_nsec - stamp.tv_nsec)
            // The two clocks differ by a constant but for a step of the wall clock: an age that is not one
            // (negative, or longer than any wait for a thread) is not trusted.
            guard age >= .zero, age < .seconds(1) else { return (count, now) }
            return (count, now - age)
        }
    }

    /// Bounds how long one blocking `send` may wait for the peer to make room.
    static func setSendTimeout(_ fd: Int32, _ timeout: Duration) {
        var tv = timeval(
            tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        if tv.tv_sec == 0 && tv.tv_usec == 0 { tv.tv_usec = 1000 }  // 0 would mean "block forever"
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Makes the next `close` send a TCP RST instead of a FIN: the peer sees "connection reset".
    static func setResetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Waits until `fd` is readable, `wake` is readable, or `timeout` passes (`nil` = no limit).
    ///
    /// A fired wake pipe wins over a readable socket, so a stopping server does not start new work.
    static func waitReadable(_ fd: Int32, wake: Int32, timeout: Duration?) -> Readiness {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let rc = poll(&fds, 2, deadline.map { milliseconds(until: $0) } ?? -1)
            if rc < 0 {
                if errno == EINTR { continue }
                return .readable  // let recv report the error
            }
            if fds[1].revents != 0 { return .woken }
            if fds[0].revents != 0 { return .readable }
            if let deadline, ContinuousClock.now >= deadline { return .timedOut }
        }
    }

    /// Sleeps for `duration` unless `wake` fires first; returns `false` if woken.
    static func sleep(_ duration: Duration, wake: Int32) -> Bool {
        let deadline = ContinuousClock.now + duration
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return true }
            // The last fraction of a millisecond is slept, not polled: poll's timeout in whole
            // milliseconds, rounded up, would add half a millisecond to every simulated latency.
            if left < .milliseconds(1) {
                var rest = timespec(tv_sec: 0, tv_nsec: Int(left.components.attoseconds / 1_000_000_000))
                nanosleep(&rest, nil)
                return true
            }
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let (seconds, attoseconds) = left.components
            let rc = poll(&fds, 1, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
            if rc > 0 { return false }
            if rc < 0 && errno != EINTR { return false }
            if ContinuousClock.now >= deadline { return true }
        }
    }

    /// Writes all of `bytes`, retrying short writes; `false` if the peer is gone or too slow.
    ///
    /// `MSG_NOSIGNAL` keeps a write to a closed peer from raising SIGPIPE, which would kill the process.
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var pointer = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            let sent = send(fd, pointer, remaining, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EINTR { continue }
                return false  // EAGAIN here means SO_SNDTIMEO expired
            }
            remaining -= sent
            pointer += sent
        }
        return true
    }

    /// Milliseconds from now to `deadline` for `poll`, rounded up so a 0.4 ms wait does not spin.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = ContinuousClock.now.duration(to: deadline)
        if left <= .zero { return 0 }
        let (seconds, attoseconds) = left.components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }
}
