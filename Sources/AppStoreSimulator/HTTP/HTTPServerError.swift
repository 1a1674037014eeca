import Glibc

/// Why an `HTTPServer` could not start.
public enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host did not resolve to an address this machine can bind.
    case invalidAddress(String)
    /// `start()` was called on a server that is running or already stopped (servers are one-shot).
    case alreadyStarted
    /// A system call failed; `errno` is kept beside the call's name.
    case system(String, Int32)

    public var description: String {
        switch self {
        case .invalidAddress(let detail): "invalid listen address \(detail)"
        case .alreadyStarted: "HTTP server already started"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}
