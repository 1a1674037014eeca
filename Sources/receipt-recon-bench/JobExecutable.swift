import Foundation

/// Finds the `receipt-recon` to measure: by default the one SwiftPM built beside this executable, so
/// `swift run -c release receipt-recon-bench` measures the release job of the same checkout.
enum JobExecutable {
    /// The path of the executable to run, checked to exist.
    /// - Throws: `BenchError.unavailable` with the command that builds it.
    static func locate(override: String?) throws(BenchError) -> String {
        let path = override ?? besideThisExecutable()
        guard FileManager.default.isExecutableFile(atPath: path) else {
            if override != nil {
                throw .unavailable("--job-binary '\(path)' is not an executable file")
            }
            let directory = (path as NSString).deletingLastPathComponent
            let configuration = directory.hasSuffix("/debug") ? "debug" : "release"
            throw .unavailable(
                "no receipt-recon executable at \(path): build it first with "
                    + "'swift build -c \(configuration) --product receipt-recon' (or pass --job-binary PATH)")
        }
        return path
    }

    /// `receipt-recon` in the directory of this process's executable (symlinks resolved).
    static func besideThisExecutable() -> String {
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return own.deletingLastPathComponent().appendingPathComponent("receipt-recon").path
    }
}
