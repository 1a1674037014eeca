import ChildProcess
import Foundation

/// A tmpfs of a few kilobytes mounted over a test's directory, so a test can fill the disk for real.
/// Mounting needs root; CI runs as root, and elsewhere `init` returns nil for the test to say it skipped.
public struct TinyFilesystem: Sendable {
    public let directory: String

    /// Mounts a tmpfs of `kilobytes` at `directory` (which must exist), or returns nil when this machine
    /// does not let us.
    public init?(at directory: String, kilobytes: Int = 64) throws {
        let result = try ChildProcess.run(
            "/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", directory], timeout: 30)
        guard result.status == 0 else { return nil }
        self.directory = directory
    }

    public func unmount() {
        _ = try? ChildProcess.run("/usr/bin/env", ["umount", directory], timeout: 30)
    }
}
