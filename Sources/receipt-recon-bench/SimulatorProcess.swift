import ChildProcess
import Foundation

/// `receipt-recon simulator serve` in its own process: started with port 0, its address read from the
/// line it prints once listening, its `/stats` read over loopback, and stopped with SIGTERM (SIGKILL
/// if it has not exited within `stopGraceSeconds`).
///
/// Threading: `start` and `stop` from the orchestrating thread; `stats()` from any thread.
final class SimulatorProcess: Sendable {
    let running: ChildProcess.Running
    let port: UInt16
    let memory: PeakMemoryWatch

    static let stopGraceSeconds: TimeInterval = 15

    /// What `/stats` says, reduced to what the bench reports.
    struct Stats: Sendable {
        /// verifyReceipt requests on both endpoints, 429s included.
        var requests: Int
        /// Requests answered 429 by the rate limit.
        var rateLimited: Int
        /// The most requests that arrived within any one-second window.
        var maxRequestsInOneSecond: Int
        /// Requests per endpoint as `/stats` names them (`production/notification_history`, …).
        var requestsByEndpoint: [String: Int] = [:]
    }

    private init(running: ChildProcess.Running, port: UInt16, memory: PeakMemoryWatch) {
        self.running = running
        self.port = port
        self.memory = memory
    }

    /// Starts `serve` and returns once it listens.
    /// - Throws: `BenchError.unavailable` when it exits or stays silent for `startTimeout` seconds
    ///   (it is killed then).
    static func start(
        executable: String,
        arguments: [String],
        environment: [String: String],
        startTimeout: TimeInterval = 600,
        registry: ChildRegistry
    ) throws -> SimulatorProcess {
        let memory = PeakMemoryWatch()
        let running = try ChildProcess.start(executable, arguments, environment: environment)
        registry.add(running.pid)
        memory.watch(running.pid)
        let deadline = Date().addingTimeInterval(startTimeout)
        while Date() < deadline {
            let output = String(decoding: running.stdoutSoFar, as: UTF8.self)
            if let port = listeningPort(in: output) {
                return SimulatorProcess(running: running, port: port, memory: memory)
            }
            if running.hasClosedOutput { break }
            usleep(50_000)
        }
        running.signal(SIGKILL)
        let result = try? running.wait(timeout: 30)
        _ = memory.finish(result?.resourceUsage ?? ChildProcess.ResourceUsage())
        registry.remove(running.pid)
        let said = (result?.stderrText ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        throw BenchError.unavailable(
            "'receipt-recon simulator serve' did not start listening"
                + (result.map { " (exit \($0.status))" } ?? " within \(Int(startTimeout)) s")
                + (said.isEmpty ? "" : ": " + said.suffix(600)))
    }

    /// The port of `listening on http://127.0.0.1:PORT …`, once that line is complete.
    static func listeningPort(in output: String) -> UInt16? {
        guard
            let line = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first(where: {
                $0.hasPrefix("listening on http://")
            })
        else { return nil }
        let authority = line.dropFirst("listening on http://".count).prefix { $0 != " " && $0 != "/" }
        return authority.split(separator: ":").last.flatMap { UInt16($0) }
    }

    func stats() throws -> Stats {
        let body = try LoopbackHTTP.get(port: port, path: "/stats")
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let requests = object["requests"] as? Int,
            let rateLimited = object["rateLimited"] as? Int
        else {
            throw BenchError.internalError("the simulator's /stats has no 'requests' or 'rateLimited' count")
        }
        return Stats(
            requests: requests, rateLimited: rateLimited,
            maxRequestsInOneSecond: object["maxRequestsInOneSecond"] as? Int ?? 0,
            requestsByEndpoint: object["requestsByEndpoint"] as? [String: Int] ?? [:])
    }

    /// Stops the server and reaps it; what it printed and consumed when it exited in time, nil when it
    /// had to be killed.
    @discardableResult
    func stop(registry: ChildRegistry) -> (result: ChildProcess.Result, peak: PeakMemoryWatch.Peak)? {
        running.signal(SIGTERM)
        defer { registry.remove(running.pid) }
        // `wait(timeout:)` sends SIGKILL and reaps when the grace period runs out.
        let result = try? running.wait(timeout: Self.stopGraceSeconds)
        let peak = memory.finish(result?.resourceUsage ?? ChildProcess.ResourceUsage())
        return result.map { ($0, peak) }
    }
}
