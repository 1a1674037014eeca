/// Why the bench stopped, and the exit code that says so (`BenchOptions.help` lists them).
struct BenchError: Error, CustomStringConvertible, Sendable {
    enum Kind: Int32, Sendable {
        /// The job failed, or a required key could not be measured.
        case measurement = 1
        case usage = 64
        /// PostgreSQL, the `receipt-recon` executable or the simulator could not be had.
        case unavailable = 69
        case internalError = 70
    }

    let kind: Kind
    let message: String

    var description: String { message }
    var exitCode: Int32 { kind.rawValue }

    static func unavailable(_ message: String) -> BenchError { BenchError(kind: .unavailable, message: message) }
    static func measurement(_ message: String) -> BenchError { BenchError(kind: .measurement, message: message) }
    static func internalError(_ message: String) -> BenchError { BenchError(kind: .internalError, message: message) }
}
