import Dispatch
import Foundation
import Postgres
import Synchronization

/// What the bench has started and must not leave behind if it is itself interrupted: child processes
/// (the seeder, the simulator, the job) and the throwaway cluster.
///
/// On SIGINT or SIGTERM it sends SIGTERM to every child still registered, newest first, each with
/// `interruptGraceSeconds` to exit before SIGKILL, then stops the cluster and exits 128 + signal. (A Ctrl-C reaches the children
/// too, as they share the terminal's process group; a SIGTERM aimed at the bench alone does not.)
///
/// Threading: `Sendable`; `add`/`remove`/`adopt` from any thread. The signal handlers run on a queue of
/// their own.
final class ChildRegistry: Sendable {
    /// Children in the order they were started.
    private let state = Mutex<(pids: [pid_t], cluster: ScratchCluster?)>(([], nil))
    private let sources = Mutex<[DispatchSource]>([])
    private let queue = DispatchQueue(label: "receipt-recon-bench.signals")

    func add(_ pid: pid_t) { state.withLock { $0.pids.append(pid) } }
    func remove(_ pid: pid_t) { state.withLock { $0.pids.removeAll { $0 == pid } } }
    func adopt(_ cluster: ScratchCluster?) { state.withLock { $0.cluster = cluster } }

    /// Installs the SIGINT and SIGTERM handlers; returns once they are registered (Dispatch registers
    /// asynchronously, and a signal arriving before that would be lost).
    func installSignalHandlers() {
        let registered = DispatchSemaphore(value: 0)
        var installed: [DispatchSource] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            // `DispatchSourceSignal` is not Sendable; the `DispatchSource` class is, so keep that.
            guard let source = DispatchSource.makeSignalSource(signal: number, queue: queue) as? DispatchSource else {
                continue
            }
            source.setEventHandler { @Sendable [self] in self.interrupted(by: number) }
            source.setRegistrationHandler { @Sendable in registered.signal() }
            source.resume()
            installed.append(source)
        }
        for _ in installed { _ = registered.wait(timeout: .now() + 1) }
        sources.withLock { $0 += installed }
    }

    /// How long interrupted children get to finish before SIGKILL: the job's own SIGTERM handling
    /// finishes the users in flight and records the run as interrupted (CONTRACT §6).
    static let interruptGraceSeconds = 30

    private func interrupted(by number: Int32) {
        let (pids, cluster) = state.withLock { ($0.pids, $0.cluster) }
        FileHandle.standardError.write(
            Data("receipt-recon-bench: interrupted; stopping \(pids.count) child process(es) and the cluster\n".utf8))
        // Newest first, one at a time: the job stops before the simulator it is talking to (else its
        // in-flight requests fail and it reports Apple unavailable instead of an interrupted run).
        for pid in pids.reversed() {
            kill(pid, SIGTERM)
            for _ in 0..<(Self.interruptGraceSeconds * 10) where Self.isRunning(pid) { usleep(100_000) }
            if Self.isRunning(pid) { kill(pid, SIGKILL) }
        }
        cluster?.stop()
        exit(128 + number)
    }

    /// Whether `pid` is still running: not gone, not a zombie waiting to be reaped (`kill(pid, 0)`
    /// succeeds for those, and the thread that reaps them may be busy waiting for another child).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        // "pid (comm) S …": the state follows the command name, which may itself hold spaces or ')'.
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        return state != nil && state != "Z" && state != "X"
    }
}
