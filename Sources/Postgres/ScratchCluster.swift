import ChildProcess
import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster in a temporary directory, listening on a Unix socket only.
///
/// Used by the test suite and by `receipt-recon demo` when no `DATABASE_URL` is given. `initdb`
/// refuses to run as root, so as root the cluster belongs to the `postgres` system user (created by
/// Debian's `postgresql` package) and its commands run through `runuser`.
///
/// Cleanup happens three ways, so that no cluster outlives its owner: `stop()`; a watchdog process
/// that stops the server and deletes the directory as soon as the owning process is gone (also after
/// a crash or SIGKILL); and the directory lives under the system temporary directory.
public final class ScratchCluster: Sendable {
    /// The cluster's directory; the socket lives here too.
    public let directory: String
    /// conninfo for the `postgres` database as the superuser `recon`.
    public let conninfo: String
    private let binDirectory: String
    private let stopped = Atomic<Bool>(false)

    /// Starts a new cluster.
    /// - Parameters:
    ///   - settings: extra server settings (`-c name=value`), e.g. `fsync=off` for tests.
    /// - Throws: `ScratchCluster.Failure` saying what to install or what the server logged.
    public init(settings: [String: String] = [:]) throws {
        let binDirectory = try Self.findBinDirectory()
        let runAsPostgres = getuid() == 0
        let directory = try Self.makeDirectory(owner: runAsPostgres ? "postgres" : nil)
        self.directory = directory
        self.binDirectory = binDirectory
        self.conninfo = "host=\(directory) user=recon dbname=postgres"

        // Before anything can leave a server behind: whatever happens to this process from here on,
        // the watchdog removes the cluster once it is gone.
        Self.startWatchdog(directory: directory, owner: getpid())
        let data = directory + "/data"
        do {
            try Self.run(
                binDirectory + "/initdb",
                [
                    "-D", data, "-A", "trust", "-U", "recon", "-E", "UTF8",
                    "--locale=C", "--no-sync",
                ], asPostgres: runAsPostgres)
            var options = "-k \(directory) -c listen_addresses='' -c max_connections=200"
            for (name, value) in settings.sorted(by: { $0.key < $1.key }) { options += " -c \(name)=\(value)" }
            try Self.run(
                binDirectory + "/pg_ctl",
                [
                    "-D", data, "-o", options, "-l", directory + "/server.log", "-w",
                    "-t", "60", "start",
                ], asPostgres: runAsPostgres)
        } catch {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: directory)
            throw Failure(message: "\(error)" + (log.isEmpty ? "" : "; server log: " + log.suffix(800)))
        }
    }

    /// Restarts the server as a failover or a minor-version upgrade would (`pg_ctl restart -m fast`):
    /// every session is terminated, and the server takes connections again when this returns.
    public func restart() throws {
        try Self.run(
            binDirectory + "/pg_ctl",
            ["-D", directory + "/data", "-l", directory + "/server.log", "-m", "fast", "-w", "-t", "60", "restart"],
            asPostgres: getuid() == 0)
    }

    /// Kills the server's postmaster with SIGKILL, as an out-of-memory killer or a crashed host would:
    /// its sessions end without a goodbye. `restart()` brings it back.
    public func killServer() {
        guard let pidFile = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
            let line = pidFile.split(separator: "\n").first, let pid = pid_t(line)
        else { return }
        kill(pid, SIGKILL)
        for _ in 0..<250 where kill(pid, 0) == 0 { usleep(20_000) }
    }

    /// Stops the server immediately and deletes the directory. Safe to call more than once.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Self.killPostmaster(dataDirectory: directory + "/data")
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Leaves the server running and the directory in place, for inspection after the owner exits: the
    /// watchdog sees the marker file and stands down, and `stop()` / `deinit` do nothing. Stopping it is
    /// then the caller's business (`stopCommand`).
    public func keep() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = FileManager.default.createFile(atPath: directory + "/" + Self.keepMarker, contents: nil)
    }

    /// A shell command that stops a kept cluster and deletes its directory.
    public var stopCommand: String {
        let pgCtl = "\(binDirectory)/pg_ctl -D \(directory)/data -m immediate stop"
        return (getuid() == 0 ? "runuser -u postgres -- " : "") + pgCtl + " && rm -rf \(directory)"
    }

    deinit { stop() }

    /// A file in the cluster's directory telling the watchdog to leave the cluster alone (`keep()`).
    static let keepMarker = "keep"

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    // MARK: - Helpers

    /// `pg_config --bindir` when it has `initdb`, else the newest `/usr/lib/postgresql/*/bin`, else PATH.
    /// `RECON_PG_BINDIR` overrides all of them.
    static func findBinDirectory() throws -> String {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["RECON_PG_BINDIR"] {
            return override
        }
        var candidates: [String] = []
        if let output = try? capture("/bin/sh", ["-c", "pg_config --bindir 2>/dev/null"]) {
            candidates.append(output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.compactMap(Int.init).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        if let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0 + "/initdb") }) {
            return found
        }
        throw Failure(
            message: "PostgreSQL server binaries (initdb, pg_ctl) not found: install them with "
                + "'apt-get install -y postgresql libpq-dev' (Debian), or set RECON_TEST_DATABASE_URL / DATABASE_URL "
                + "to an existing server, or RECON_PG_BINDIR to the directory holding initdb")
    }

    private static func makeDirectory(owner: String?) throws -> String {
        var template = Array(
            (NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/")
                .appending("recon-pg-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Failure(
                message: "cannot create a temporary directory for PostgreSQL: \(String(cString: strerror(errno)))")
        }
        let path = String(cString: made)
        if let owner {
            guard let account = getpwnam(owner) else {
                try? FileManager.default.removeItem(atPath: path)
                throw Failure(
                    message: "running as root, PostgreSQL must run as the 'postgres' user, which does not exist: "
                        + "install the server with 'apt-get install -y postgresql'")
            }
            chown(path, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        return path
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool) throws -> String {
        if asPostgres {
            return try capture("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
        }
        return try capture(executable, arguments)
    }

    /// Runs a command to completion and returns its standard output; throws with its output on failure.
    @discardableResult
    static func capture(_ executable: String, _ arguments: [String]) throws -> String {
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(executable, arguments, timeout: 120)
        } catch {
            throw Failure(message: "\(error)")
        }
        guard result.status == 0 else {
            let command = arguments.first == "-u" ? (arguments.dropFirst(3).first ?? executable) : executable
            let output = (result.stdoutText + result.stderrText).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(
                message:
                    "\((command as NSString).lastPathComponent) failed (exit \(result.status)): \(output.suffix(800))")
        }
        return result.stdoutText
    }

    /// SIGQUIT is PostgreSQL's immediate shutdown: nothing to flush in a throwaway cluster.
    static func killPostmaster(dataDirectory: String) {
        guard let pidFile = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
            let line = pidFile.split(separator: "\n").first, let pid = pid_t(line)
        else { return }
        kill(pid, SIGQUIT)
        for _ in 0..<100 where kill(pid, 0) == 0 {
            usleep(20_000)
        }
    }

    /// A detached shell that waits for `owner` to exit, then stops the server and deletes `directory`
    /// (unless `keep()` left its marker there). It runs in its own session so that a Ctrl-C aimed at the owner's process group does not kill it.
    /// It also covers a failed start: then the directory holds no server and it only deletes it.
    private static func startWatchdog(directory: String, owner: pid_t) {
        let script = """
            while kill -0 \(owner) 2>/dev/null; do sleep 1; done
            [ -e '\(directory)/\(keepMarker)' ] && exit 0
            pid=$(head -n 1 '\(directory)/data/postmaster.pid' 2>/dev/null)
            [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null
            sleep 1
            rm -rf '\(directory)'
            """
        try? ChildProcess.startDetached("/bin/sh", ["-c", script])
    }
}
