import Foundation
import Synchronization

/// Runs other programs with `posix_spawn` and `waitpid`.
///
/// Foundation's `Process.waitUntilExit()` was seen here to hang for good when called from a Swift
/// Testing worker thread (the child had exited; the run loop never heard of it), so the test
/// infrastructure and the throwaway cluster use this instead: no run loop, no signal source.
public enum ChildProcess {
    /// Serialises pipe creation and spawning (see `start`).
    private static let spawnLock = NSLock()

    public struct Result: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: Data
        /// What the child consumed, as `wait4` reported it when the child was reaped.
        public var resourceUsage = ResourceUsage()
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// A child's CPU time and peak memory (`struct rusage` from `wait4`): the child's own figures, plus
    /// those of any descendants it waited for, never this process's.
    public struct ResourceUsage: Sendable, Equatable {
        /// CPU time in user mode, seconds.
        public var userSeconds = 0.0
        /// CPU time in the kernel on the child's behalf, seconds.
        public var systemSeconds = 0.0
        /// Peak resident set size, kilobytes (Linux reports `ru_maxrss` in KiB). Caution: glibc's
        /// `posix_spawn` runs the child on this process's memory until `exec`, and Linux folds that
        /// memory's high-water mark into the child's figure, so this is max(this process's peak at spawn,
        /// the child's own peak). It is the child's own only when it exceeds the former.
        public var maxResidentKilobytes = 0

        public init(userSeconds: Double = 0, systemSeconds: Double = 0, maxResidentKilobytes: Int = 0) {
            self.userSeconds = userSeconds
            self.systemSeconds = systemSeconds
            self.maxResidentKilobytes = maxResidentKilobytes
        }

        /// User plus system CPU time, seconds.
        public var cpuSeconds: Double { userSeconds + systemSeconds }

        init(_ usage: rusage) {
            func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
            userSeconds = seconds(usage.ru_utime)
            systemSeconds = seconds(usage.ru_stime)
            maxResidentKilobytes = Int(usage.ru_maxrss)
        }
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// Runs `executable` to completion, feeding `stdin` and collecting both output streams.
    /// - Parameters:
    ///   - environment: the child's whole environment; nil inherits this process's.
    ///   - timeout: after this many seconds the child is killed (SIGKILL) and `Failure` thrown.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        stdin: Data? = nil,
        timeout: TimeInterval? = nil
    ) throws -> Result {
        try start(executable, arguments, environment: environment, stdin: stdin).wait(timeout: timeout)
    }

    /// A child started by `start`, still running or finished.
    public final class Running: Sendable {
        /// The child's process id (to signal it: `signal(_:)`).
        public let pid: pid_t
        let executable: String
        private let readers: DispatchGroup
        private let collected: Collector

        init(pid: pid_t, executable: String, readers: DispatchGroup, collected: Collector) {
            self.pid = pid
            self.executable = executable
            self.readers = readers
            self.collected = collected
        }

        /// Sends `signal` (e.g. SIGKILL, SIGTERM) to the child.
        public func signal(_ number: Int32) {
            kill(pid, number)
        }

        /// What the child has written to stdout so far (for a server that announces its address on its
        /// first line and keeps running).
        public var stdoutSoFar: Data { collected.values.0 }

        /// True once the child has closed both stdout and stderr: it has exited (or closed them itself).
        /// Does not reap it; `wait` still does.
        public var hasClosedOutput: Bool { readers.wait(timeout: .now()) == .success }

        /// Waits for the child to exit and returns what it printed.
        /// - Parameter timeout: after this many seconds the child is killed (SIGKILL) and `Failure` thrown.
        public func wait(timeout: TimeInterval? = nil) throws -> Result {
            if let timeout, readers.wait(timeout: .now() + timeout) == .timedOut {
                kill(pid, SIGKILL)
                _ = waitForExit(pid)
                throw Failure(
                    message: "\((executable as NSString).lastPathComponent) did not finish within \(Int(timeout)) s")
            }
            readers.wait()
            let (status, usage) = waitForExit(pid)
            let (out, err) = collected.values
            return Result(status: status, stdout: out, stderr: err, resourceUsage: usage)
        }
    }

    /// Starts `executable` with piped stdio and returns at once; `wait` collects the result.
    public static func start(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        stdin: Data? = nil
    ) throws -> Running {
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        var inPipe: [Int32] = [0, 0]
        // Close-on-exec, so that a child started concurrently by another thread does not inherit
        // these pipes and keep them open (our reader would then wait for *that* child to exit).
        // posix_spawn's dup2 onto 0, 1 and 2 clears the flag for the child's own copies. (pipe2 with
        // O_CLOEXEC is hidden behind _GNU_SOURCE; the lock closes the window between pipe and fcntl
        // for every spawn made through this type.)
        spawnLock.lock()
        defer { spawnLock.unlock() }
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0, pipe(&inPipe) == 0 else {
            throw Failure(message: "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        for descriptor in outPipe + errPipe + inPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for descriptor in [inPipe[0], inPipe[1], outPipe[0], outPipe[1], errPipe[0], errPipe[1]] {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let pid = try spawn(executable, arguments, environment: environment, actions: &actions, newSession: false)
        close(inPipe[0])
        close(outPipe[1])
        close(errPipe[1])

        let collected = Collector()
        let group = DispatchGroup()
        // Own threads, not the global queue: they block in read(2).
        for (descriptor, isOut) in [(outPipe[0], true), (errPipe[0], false)] {
            group.enter()
            Thread.detachNewThread {
                readAll(descriptor) { collected.append($0, isOut: isOut) }
                close(descriptor)
                group.leave()
            }
        }
        let writer = inPipe[1]
        if let stdin {
            Thread.detachNewThread {
                stdin.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        let written = write(writer, buffer.baseAddress! + offset, buffer.count - offset)
                        if written <= 0 { break }
                        offset += written
                    }
                }
                close(writer)
            }
        } else {
            close(writer)
        }
        return Running(pid: pid, executable: executable, readers: group, collected: collected)
    }

    /// Starts `executable` in a new session (immune to signals aimed at this process group) with
    /// stdio on /dev/null, and does not wait for it.
    public static func startDetached(_ executable: String, _ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        _ = try spawn(executable, arguments, environment: nil, actions: &actions, newSession: true)
    }

    private static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]?,
        actions: inout posix_spawn_file_actions_t,
        newSession: Bool
    ) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        // POSIX_SPAWN_SETSID (glibc ≥ 2.26) is hidden behind _GNU_SOURCE, so Swift cannot see it.
        if newSession { flags |= 0x80 }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environmentList = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = environmentList.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw Failure(message: "cannot run \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Reaps `pid` and returns its exit status (128 + signal when killed) and resource usage. `wait4`
    /// rather than `waitpid`: the same wait, plus the child's own rusage.
    static func waitForExit(_ pid: pid_t) -> (status: Int32, usage: ResourceUsage) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot see.
        let signal = status & 0x7F
        return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal, ResourceUsage(usage))
    }

    /// Reads `descriptor` to its end, handing each chunk to `chunk` as it arrives.
    private static func readAll(_ descriptor: Int32, _ chunk: (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                chunk(Data(buffer[0..<count]))
            } else if count == 0 || errno != EINTR {
                break
            }
        }
    }
}

/// Output collected by the reader threads, readable while they still run.
final class Collector: Sendable {
    private let state = Mutex((out: Data(), err: Data()))

    func append(_ data: Data, isOut: Bool) {
        state.withLock { if isOut { $0.out.append(data) } else { $0.err.append(data) } }
    }

    var values: (Data, Data) { state.withLock { ($0.out, $0.err) } }
}
