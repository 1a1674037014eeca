import Glibc
import Synchronization

/// A one-shot broadcast for threads blocked in `poll`: once fired, its read end stays readable.
///
/// Threading: `fire()` may be called from any thread, any number of times; only the first call writes.
/// Threads poll `readFD` and never read from it, so every current and future poller sees the event.
final class WakePipe: Sendable {
    let readFD: Int32
    private let writeFD: Int32
    private let fired = Atomic<Bool>(false)

    init() throws(HTTPServerError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .system("pipe", errno) }
        readFD = fds[0]
        writeFD = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    var isFired: Bool { fired.load(ordering: .acquiring) }

    func fire() {
        guard !fired.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    deinit {
        close(readFD)
        close(writeFD)
    }
}
