import Foundation
import TestSupport
import Testing

/// The repository's `Dockerfile`, read as Docker would read it (there is no Docker engine to build it
/// here): two stages, the documented build command, a runtime of exactly the README's deploy-host
/// packages, a fixed non-root user, and a build context without build products.
@Suite struct DockerfileTests {
    static func dockerfile() throws -> DockerfileInstructions {
        try DockerfileInstructions(DeployDocuments.text("Dockerfile"))
    }

    @Test func theBuildStageUsesThisToolchainOnDebian12AndTheDocumentedCommand() throws {
        let stages = try Self.dockerfile().stages
        try #require(stages.count == 2, "a build stage and a runtime stage")
        let build = stages[0]
        let toolchain = try ChildProcess.run("/usr/bin/env", ["swiftc", "--version"], timeout: 60).stdoutText
        let version = try #require(
            toolchain.split(separator: " ").drop { $0 != "version" }.dropFirst().first.map(String.init),
            "swiftc --version said: \(toolchain)")
        #expect(build.image == "swift:\(version)-bookworm", "the official image of the toolchain tested here")
        #expect(build.name != nil)

        let documented = try DeployDocuments.documentedBuildCommand()
        #expect(documented.contains(" -c release") && documented.contains(" --static-swift-stdlib"))
        #expect(build.commands.filter { $0.hasPrefix("swift build") } == [documented])
    }

    @Test func everyDocumentedBuildCommandIsTheSame() throws {
        let documented = try DeployDocuments.documentedBuildCommand()
        for document in ["README.md", "docs/operations.md"] {
            for line in try DeployDocuments.buildCommandLines(in: DeployDocuments.text(document)) {
                #expect(line == documented, "\(document): \(line)")
            }
        }
    }

    @Test func theRuntimeStageHoldsExactlyTheREADMEsDeployHostPackages() throws {
        let packages = try DeployDocuments.deployHostPackages()
        try #require(packages.contains("libpq5"), "README's deploy-host sentence reads: \(packages)")
        let runtime = try #require(try Self.dockerfile().stages.last)
        #expect(["debian:12-slim", "debian:bookworm-slim"].contains(runtime.image))
        let installs = runtime.aptInstalls
        try #require(installs.count == 1, "one apt-get install in the runtime stage")
        #expect(installs[0].packages.sorted() == packages.sorted())
        #expect(installs[0].options.contains("--no-install-recommends"))
        #expect(runtime.commands.contains("rm -rf /var/lib/apt/lists/*"))

        // The host install line docs/operations.md gives names the same packages.
        let hostLines = try DeployDocuments.text("docs/operations.md").split(separator: "\n")
            .filter { $0.hasPrefix("apt-get install") }
        #expect(!hostLines.isEmpty)
        for line in hostLines {
            let words = (line.split(separator: "#").first ?? line).split(separator: " ").dropFirst(2)
            #expect(words.filter { !$0.hasPrefix("-") }.map(String.init).sorted() == packages.sorted(), "\(line)")
        }
    }

    @Test func theImageRunsTheBinaryAsAFixedNonRootUser() throws {
        let stages = try Self.dockerfile().stages
        let runtime = try #require(stages.last)
        let user = try #require(runtime.all("USER").last, "the runtime stage sets USER")
        // Kubernetes' runAsNonRoot can only verify a numeric user.
        let ids = user.split(separator: ":").map { Int($0) }
        try #require(!ids.isEmpty && ids.allSatisfy { $0 != nil }, "USER \(user) is not numeric")
        let uid = ids[0]!
        #expect(uid != 0)
        #expect(runtime.commands.contains { $0.hasPrefix("useradd") && $0.contains("--uid \(uid)") })
        if ids.count == 2 {
            #expect(runtime.commands.contains { $0.hasPrefix("groupadd") && $0.contains("--gid \(ids[1]!)") })
        }

        let buildName = try #require(stages.first?.name)
        #expect(
            runtime.all("COPY").contains {
                $0.hasPrefix("--from=\(buildName) ") && $0.hasSuffix(" /usr/local/bin/receipt-recon")
            })
        #expect(runtime.all("ENTRYPOINT") == [#"["receipt-recon"]"#])
    }

    @Test func theBuildContextLeavesOutBuildProductsAndHistory() throws {
        let patterns = try DeployDocuments.text(".dockerignore").split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        func ignored(_ path: String) -> Bool { patterns.contains { fnmatch($0, path, 0) == 0 } }
        for path in [".build", ".build-static", ".git", "Fuzz/ReceiptDecoderFuzz/.build"] {
            #expect(ignored(path), "\(path) would be sent to the Docker daemon")
        }
        for path in ["Package.swift", "Sources", "SQL", "Plugins", "Tests"] {
            #expect(!ignored(path), "the build needs \(path)")
        }
    }
}
