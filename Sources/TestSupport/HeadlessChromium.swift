import ChildProcess
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's Chromium run headless on a local page, for tests that check what a browser makes of the
/// HTML the job writes.
public enum HeadlessChromium {
    public static let path = "/usr/bin/chromium"

    /// Whether the `chromium` package is installed; tests that need it are skipped when it is not.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Opens `page` (a file path) with `arguments` (`--dump-dom`, `--screenshot=FILE`, …) and returns
    /// what Chromium printed. `profile` is a directory of the caller's: a profile of its own keeps
    /// parallel runs from sharing one. As root Chromium refuses to start without `--no-sandbox`.
    public static func run(_ arguments: [String], page: String, profile: String) throws -> ChildProcess.Result {
        var flags = ["--headless", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)"]
        if getuid() == 0 { flags.append("--no-sandbox") }
        return try ChildProcess.run(
            path, flags + arguments + [URL(fileURLWithPath: page).absoluteString], timeout: 120)
    }
}
