import Foundation

/// Runs a program as it would run on a deploy host without the Swift toolchain: in a private mount
/// namespace (`unshare --mount`) where an empty tmpfs covers the toolchain's directory, so nothing
/// under it (libswiftCore.so, Foundation, Dispatch, swiftc) can be found or loaded. The rest of the
/// machine (libc, libpq, libcurl, the network, the test's PostgreSQL socket) stays as it is.
///
/// The toolchain is located where this test process (built by it) really loaded its Swift runtime from,
/// never where toolchains are usually installed. As root this needs no more; otherwise `unshare` also
/// maps the caller to root in a new user namespace, which the kernel must allow. An unprivileged
/// container allows neither, and the sandbox then throws rather than run the program unhidden.
public struct ToolchainFreeHost: Sendable {
    /// The directory the tmpfs covers: the toolchain's install prefix.
    public let hiddenDirectory: String
    /// The Swift runtime this process loaded; it must be gone inside the namespace.
    public let runtimeLibrary: String
    private let unshare: String

    /// The exit status the sandbox's own shell uses when it could not hide the toolchain.
    private static let sandboxFailure: Int32 = 125
    private static let sandboxMarker = "toolchain-free host:"

    public init() throws {
        guard let runtime = Self.loadedSwiftRuntime() else {
            throw Failure(
                message:
                    "\(Self.sandboxMarker) this process loaded no libswiftCore.so, so the toolchain cannot be located")
        }
        guard let unshare = Self.onPath("unshare") else {
            throw Failure(message: "\(Self.sandboxMarker) unshare(1) not found on PATH (Debian: util-linux)")
        }
        self.runtimeLibrary = runtime
        self.unshare = unshare
        self.hiddenDirectory = Self.toolchainDirectory(runtime: runtime)
    }

    /// Runs `executable arguments…` with the toolchain hidden and only `environment` (plus PATH) set.
    /// Throws when the sandbox itself could not be set up, so that a broken sandbox never passes for a
    /// binary that works.
    public func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = 120
    ) throws -> ReceiptReconBinary.Result {
        // The script's positional parameters: $1 the directory to cover, $2 the runtime that must then be
        // gone, the rest the command. exec keeps the program's own exit status.
        let script = """
            mount -t tmpfs -o size=64k,mode=0755 toolchain-hidden "$1" \
              || { echo "\(Self.sandboxMarker) cannot mount a tmpfs over $1" >&2; exit \(Self.sandboxFailure); }
            if [ -e "$2" ]; then echo "\(Self.sandboxMarker) $2 is still visible" >&2; exit \(Self.sandboxFailure); fi
            shift 2
            exec "$@"
            """
        guard !executable.hasPrefix(hiddenDirectory + "/") else {
            throw Failure(message: "\(Self.sandboxMarker) \(executable) lies inside the hidden \(hiddenDirectory)")
        }
        var unshareArguments = ["--mount", "--propagation", "private"]
        if geteuid() != 0 { unshareArguments.append("--map-root-user") }
        unshareArguments += ["--", "/bin/sh", "-c", script, "sh", hiddenDirectory, runtimeLibrary, executable]
        var childEnvironment = environment
        childEnvironment["PATH"] =
            childEnvironment["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let result = try ChildProcess.run(
            unshare, unshareArguments + arguments, environment: childEnvironment, timeout: timeout)
        let stderr = result.stderrText
        if result.status == Self.sandboxFailure && stderr.contains(Self.sandboxMarker)
            || stderr.hasPrefix("unshare:")
        {
            throw Failure(
                message: "could not hide the toolchain (run as root, or allow unprivileged user namespaces): "
                    + stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return ReceiptReconBinary.Result(status: result.status, stdout: result.stdoutText, stderr: stderr)
    }

    /// The toolchain's install prefix: three directories above the runtime's own
    /// (`<prefix>/lib/swift/linux/libswiftCore.so`), which is also where its `bin/swiftc` lives. Where that
    /// prefix is the system itself (a toolchain installed into /usr, whose cover would hide the shell and
    /// libc too), only the runtime's `lib/swift` directory is covered.
    static func toolchainDirectory(runtime: String) -> String {
        let libraryDirectory = URL(fileURLWithPath: runtime).deletingLastPathComponent()
        let prefix = libraryDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let shell = URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path
        if prefix == "/" || shell.hasPrefix(prefix + "/") {
            return libraryDirectory.deletingLastPathComponent().path
        }
        return prefix
    }

    /// The path of the libswiftCore.so mapped into this process, from /proc/self/maps.
    static func loadedSwiftRuntime() -> String? {
        // Read to end of file: /proc reports a size of 0, which a whole-file read would believe.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
        defer { try? handle.close() }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if path.hasSuffix("/libswiftCore.so") {
                return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            }
        }
        return nil
    }

    /// `name` found on PATH, symbolic links resolved.
    static func onPath(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        for directory in directories {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
            }
        }
        return nil
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }
}
