import Foundation
import PackagePlugin

/// Embeds `SQL/NNNN_*.sql` into the `ReconSchema` module at build time, so the installed binary
/// carries its migrations and `SQL/` stays the one place they are written.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let sqlDirectory = context.package.directoryURL.appending(path: "SQL")
        let files = try FileManager.default
            .contentsOfDirectory(at: sqlDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) SQL migrations",
                executable: try context.tool(named: "embed-migrations").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            ),
        ]
    }
}
