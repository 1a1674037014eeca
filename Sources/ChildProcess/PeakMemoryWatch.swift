import Foundation
import Synchronization

/// A child's own peak resident memory, kept apart from its parent's (the bench's, a test's).
///
/// `wait4`'s `ru_maxrss` alone is not enough: glibc's `posix_spawn` starts the child sharing this
/// process's memory (`CLONE_VM`), and at `exec` Linux folds that memory's high-water mark into the
/// child's `maxrss`. So the child's figure is max(this process's peak at spawn, the child's own peak),
/// and a parent that had grown bigger than the child would report its own size as the child's.
///
/// So the watch notes this process's peak just before the spawn (`VmHWM` of /proc/self/status), and
/// samples the child's `VmHWM` (its own address space, fresh at exec) while it runs. At the end:
/// when `ru_maxrss` exceeds the parent's peak at spawn, it is the child's own, exact (`wait4`);
/// otherwise the highest sample is (`sampled`; it misses growth in the last `interval` only).
///
/// Threading: `Sendable`; the sampler runs on its own thread until `finish`.
public final class PeakMemoryWatch: Sendable {
    public struct Peak: Sendable {
        public var kilobytes: Int
        /// `wait4` (exact) or `sampled` (VmHWM while running).
        public var source: String
    }

    private let parentAtSpawn: Int
    private let sampled = Mutex((pid: pid_t(0), kilobytes: 0))
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let interval: TimeInterval

    /// Call right before spawning the child.
    public init(interval: TimeInterval = 0.1) {
        self.interval = interval
        parentAtSpawn = Self.highWaterKilobytes(of: "self") ?? 0
    }

    /// Starts sampling `pid` (call right after the spawn).
    public func watch(_ pid: pid_t) {
        sampled.withLock { $0.pid = pid }
        Thread.detachNewThread { [self] in
            repeat {
                sample()
            } while stopped.wait(timeout: .now() + interval) == .timedOut
            finished.signal()
        }
    }

    /// Stops sampling and returns the child's peak, given what `wait4` reported. Call once the child is reaped.
    public func finish(_ usage: ChildProcess.ResourceUsage) -> Peak {
        stopped.signal()
        finished.wait()
        if usage.maxResidentKilobytes > parentAtSpawn {
            return Peak(kilobytes: usage.maxResidentKilobytes, source: "wait4")
        }
        return Peak(kilobytes: sampled.withLock { $0.kilobytes }, source: "sampled")
    }

    private func sample() {
        let pid = sampled.withLock { $0.pid }
        // nil once the child has exited (a zombie has no VmHWM line).
        guard let value = Self.highWaterKilobytes(of: String(pid)) else { return }
        sampled.withLock { $0.kilobytes = max($0.kilobytes, value) }
    }

    /// `VmHWM` of /proc/`process`/status, kilobytes.
    public static func highWaterKilobytes(of process: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.dropFirst("VmHWM:".count).filter(\.isNumber))
    }
}
