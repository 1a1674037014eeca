import Foundation
import Testing

/// Reconciliation's folders form layers a reader can follow down: no two folders depend on each other,
/// directly or around a longer cycle, and `Model/` (the values the stages share) depends on none. Read
/// from the sources (`FolderGraph`): a type moved into the wrong folder fails here, naming the cycle
/// and a reference for each of its edges.
@Suite struct FolderDependencyTests {
    static let module = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Reconciliation")

    @Test func noCycleBetweenTheFolders() throws {
        let graph = try FolderGraph(module: Self.module)
        #expect(graph.folders.count > 10, "the scan found the folders")
        #expect(graph.edgeLines.count > 20, "the scan found the references")
        let cycles = graph.cycles.map(graph.describe)
        #expect(cycles.isEmpty, "folders that depend on each other:\n\(cycles.joined(separator: "\n"))")
    }

    @Test func theModelDependsOnNoOtherFolder() throws {
        let graph = try FolderGraph(module: Self.module)
        #expect(graph.folders.contains("Model"))
        let references = graph.dependencies(of: "Model").map { "Model -> \($0) (\(graph.edges["Model"]![$0]!))" }
        #expect(references.isEmpty, "Model/ names types of other folders:\n\(references.joined(separator: "\n"))")
    }

    /// The graph for docs/architecture.md: `swift test --filter FolderDependencyTests.printTheGraph`.
    @Test func printTheGraph() throws {
        let graph = try FolderGraph(module: Self.module)
        print(graph.edgeLines.joined(separator: "\n"))
        let connected = Set(graph.edges.flatMap { [$0.key] + $0.value.keys })
        #expect(connected == graph.folders, "every folder is used or uses another")
    }

    // MARK: - The scan itself

    static let sample: [(path: String, text: String)] = [
        (
            "A/Outer.swift",
            """
            /// Mentions `Gamma` in a comment.
            public struct Outer {
                enum Inner { case one }
                var beta: Beta  // Gamma
                /* Gamma /* nested */ Gamma */
                let text = "Gamma \\(Delta.make()) \\"Gamma\\""
                let raw = #"Gamma \\(Gamma) \\#(Epsilon.zero)"#
                let block = \"\"\"
                    Gamma
                    \"\"\"
                class func make() -> Outer { Outer(beta: .init()) }
                func member() -> Int { other.Gamma }
            }
            """
        ),
        ("B/Beta.swift", "struct Beta {}\nextension Outer.Inner {}\n"),
        ("C/Gamma.swift", "enum Gamma {}\ntypealias Delta = Int\nactor Epsilon {}\n"),
        ("C/Inner.swift", "enum Inner {}\n"),
        ("D/Loop.swift", "struct Loop { var c: Inner }\nextension Beta { var loop: Loop? { nil } }\n"),
    ]

    @Test func theScanReadsTypesNotTextNorMembers() {
        let graph = FolderGraph(files: Self.sample)
        // A: `Beta` (B), `Delta` and `Epsilon` in interpolations (C); `Gamma` only in text or after a dot;
        // `Inner` is A's own. B extends A's `Outer` (`.Inner` is a member). D names C's `Inner`, extends B.
        #expect(graph.edgeLines == ["A -> B", "A -> C", "B -> A", "D -> B", "D -> C"])
        #expect(graph.edges["A"]?["C"]?.description == "A/Outer.swift:6 Delta")
        #expect(graph.edges["A"]?["B"]?.description == "A/Outer.swift:4 Beta")
    }

    @Test func aCycleIsNamedWithAReferenceForEachEdge() {
        let graph = FolderGraph(files: Self.sample)
        #expect(graph.cycles == [["A", "B", "A"]])
        #expect(graph.cycles.map(graph.describe) == ["A -> B (A/Outer.swift:4 Beta), B -> A (B/Beta.swift:2 Outer)"])
        let layered = FolderGraph(files: Self.sample.filter { $0.path != "B/Beta.swift" })
        #expect(layered.cycles.isEmpty)
    }
}
