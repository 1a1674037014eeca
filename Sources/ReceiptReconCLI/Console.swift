import Foundation

/// Where a command writes: human output and results on stdout, errors and logs on stderr.
public struct Console: Sendable {
    public init() {}

    /// Writes `text` and a newline to stdout.
    public func print(_ text: String) {
        write(text + "\n", to: FileHandle.standardOutput)
    }

    /// Writes `text` to stdout as is.
    public func write(_ text: String) {
        write(text, to: FileHandle.standardOutput)
    }

    /// Writes one line to stderr.
    public func error(_ text: String) {
        write(text + "\n", to: FileHandle.standardError)
    }

    /// Writes `text` to stderr as is (progress lines redraw themselves with `\r`).
    public func errorWrite(_ text: String) {
        write(text, to: FileHandle.standardError)
    }

    private func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }

    /// True when stderr is a terminal (progress lines are shown only then).
    public var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
