import Foundation

/// Where the shared conformance corpus lives: `RECON_CONFORMANCE_DIR`, or `../shared/conformance`
/// beside the repository. Tests that need it are skipped with a printed notice when it is absent
/// (the corpus is not part of this repository).
public enum Conformance {
    public static let directory: URL? = {
        let environment = ProcessInfo.processInfo.environment["RECON_CONFORMANCE_DIR"]
        let candidate =
            environment.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TestSupport
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // repository root
            .appendingPathComponent("../shared/conformance")
            .standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            print(
                "NOTICE: conformance corpus not found at \(candidate.path) (set RECON_CONFORMANCE_DIR); conformance tests are skipped"
            )
            return nil
        }
        return candidate
    }()

    public static var isAvailable: Bool { directory != nil }

    public static func file(_ relativePath: String) throws -> Data {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: directory.appendingPathComponent(relativePath))
    }

    public static func files(in relativeDirectory: String, withExtension pathExtension: String) -> [URL] {
        guard let directory else { return [] }
        let folder = directory.appendingPathComponent(relativeDirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix("." + pathExtension) }.sorted().map { folder.appendingPathComponent($0) }
    }
}
