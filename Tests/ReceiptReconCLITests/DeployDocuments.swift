import Foundation

/// What the README and docs/operations.md promise a deploy host, read from the documents themselves so
/// that the Dockerfile, `.ci/host-check` and the tests cannot drift from them.
enum DeployDocuments {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// The packages of the README's sentence "A deploy host needs only `libpq5`, … and `ca-certificates`."
    static func deployHostPackages() throws -> [String] {
        let readme = try text("README.md").replacingOccurrences(of: "\n", with: " ")
        guard let start = readme.range(of: "A deploy host needs only") else {
            throw DocumentError(message: "README.md lost its sentence \"A deploy host needs only …\"")
        }
        let sentence = readme[start.upperBound...].prefix { $0 != "." }
        return sentence.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The build command of docs/operations.md's Install paragraph: its code line `swift build -c release …`,
    /// without the trailing comment (`.ci/host-check` reads it the same way).
    static func documentedBuildCommand() throws -> String {
        let commands = try buildCommandLines(in: text("docs/operations.md"))
        guard let first = commands.first else {
            throw DocumentError(message: "docs/operations.md has no line starting with 'swift build -c release'")
        }
        return first
    }

    /// Every line starting with `swift build -c release`, trailing comment and spaces removed.
    static func buildCommandLines(in document: String) -> [String] {
        document.split(separator: "\n").filter { $0.hasPrefix("swift build -c release") }.map { line in
            let command = line.split(separator: "#", maxSplits: 1).first ?? line
            return command.trimmingCharacters(in: .whitespaces)
        }
    }

    struct DocumentError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
