import Foundation

/// Reconciliation's folders as a graph: an edge from one folder to another when a file of the first
/// names a type the second declares. Read from the source text, so it sees what the compiler cannot
/// (one module, no import between folders) and what a reader sees.
///
/// A type is declared by `struct`, `enum`, `class`, `protocol`, `actor` or `typealias` outside any
/// braces (an `extension` declares nothing: extending another folder's type depends on it). A name in
/// code is a reference; one after a dot is a member, and one in a comment or a string literal (outside
/// its interpolations) is text. A folder that declares a name itself, nested or not, means its own.
struct FolderGraph {
    /// Where an edge was seen: the first reference in file order.
    struct Reference: Comparable, CustomStringConvertible {
        var file: String
        var line: Int
        var type: String

        static func < (lhs: Reference, rhs: Reference) -> Bool {
            (lhs.file, lhs.line, lhs.type) < (rhs.file, rhs.line, rhs.type)
        }

        var description: String { "\(file):\(line) \(type)" }
    }

    /// Every folder holding a Swift file.
    private(set) var folders: Set<String> = []
    /// `edges[from][to]`: the first reference of `from` to a type `to` declares.
    private(set) var edges: [String: [String: Reference]] = [:]

    /// - Parameter files: each file's path under the module's folder (`Folder/File.swift`) and text.
    init(files: [(path: String, text: String)]) {
        let scanned = files.map { file in
            (path: file.path, folder: String(file.path.prefix { $0 != "/" }), tokens: SwiftTokens.scan(file.text))
        }
        var declaringFolder: [String: String] = [:]
        var declaredIn: [String: Set<String>] = [:]
        for file in scanned {
            folders.insert(file.folder)
            for (index, token) in file.tokens.enumerated()
            where index + 1 < file.tokens.count && Self.declares(token, next: file.tokens[index + 1]) {
                let name = file.tokens[index + 1].name
                declaredIn[file.folder, default: []].insert(name)
                if token.depth == 0 { declaringFolder[name] = file.folder }
            }
        }
        for file in scanned {
            let own = declaredIn[file.folder] ?? []
            for token in file.tokens where !token.afterDot && !own.contains(token.name) {
                guard let target = declaringFolder[token.name], target != file.folder else { continue }
                let reference = Reference(file: file.path, line: token.line, type: token.name)
                if let seen = edges[file.folder]?[target], seen < reference { continue }
                edges[file.folder, default: [:]][target] = reference
            }
        }
    }

    /// The module's folder read from disk: every `.swift` file under it.
    init(module: URL) throws {
        let enumerator = FileManager.default.enumerator(atPath: module.path)
        var files: [(path: String, text: String)] = []
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            files.append((path, try String(contentsOf: module.appendingPathComponent(path), encoding: .utf8)))
        }
        self.init(files: files.sorted { $0.path < $1.path })
    }

    private static let declarationKeywords: Set<String> = ["struct", "enum", "class", "protocol", "actor", "typealias"]
    /// What may follow `class` when it is a modifier (`class func`), not a declaration.
    private static let notATypeName: Set<String> = [
        "func", "var", "let", "subscript", "static", "final", "override", "private", "fileprivate", "internal",
        "public", "open", "package", "init",
    ]

    private static func declares(_ token: SwiftTokens.Token, next: SwiftTokens.Token) -> Bool {
        guard declarationKeywords.contains(token.name), !token.afterDot, !next.afterDot else { return false }
        return !notATypeName.contains(next.name) && !declarationKeywords.contains(next.name)
    }

    /// The edges as `From -> To`, sorted: the folder graph a reader compares with the docs.
    var edgeLines: [String] {
        edges.flatMap { from, targets in targets.keys.map { "\(from) -> \($0)" } }.sorted()
    }

    /// The folders `folder` depends on, sorted.
    func dependencies(of folder: String) -> [String] { (edges[folder] ?? [:]).keys.sorted() }

    /// The shortest cycle through each folder of every group of folders that depend on each other (a
    /// strongly connected component), without repeats, each as the folders in order from its smallest
    /// name back to it: `["Pipeline", "Run", "Pipeline"]`.
    var cycles: [[String]] {
        var found: [[String]] = []
        for component in components() where component.count > 1 {
            for folder in component {
                let cycle = shortestCycle(through: folder, within: Set(component)).dropLast()
                let start = cycle.firstIndex(of: cycle.min()!)!
                let rotated = Array(cycle[start...] + cycle[..<start])
                if !found.contains(rotated + [rotated[0]]) { found.append(rotated + [rotated[0]]) }
            }
        }
        return found
    }

    /// `cycle` in words: each edge with the reference that makes it.
    func describe(_ cycle: [String]) -> String {
        zip(cycle, cycle.dropFirst()).map { from, to in "\(from) -> \(to) (\(edges[from]![to]!))" }
            .joined(separator: ", ")
    }

    /// Tarjan's strongly connected components, over folders and neighbours in name order.
    private func components() -> [[String]] {
        var index: [String: Int] = [:]
        var low: [String: Int] = [:]
        var stack: [String] = []
        var onStack: Set<String> = []
        var result: [[String]] = []
        func visit(_ folder: String) {
            index[folder] = index.count
            low[folder] = index[folder]
            stack.append(folder)
            onStack.insert(folder)
            for next in dependencies(of: folder) {
                if index[next] == nil {
                    visit(next)
                    low[folder] = min(low[folder]!, low[next]!)
                } else if onStack.contains(next) {
                    low[folder] = min(low[folder]!, index[next]!)
                }
            }
            guard low[folder] == index[folder] else { return }
            var component: [String] = []
            while let top = stack.popLast() {
                onStack.remove(top)
                component.append(top)
                if top == folder { break }
            }
            result.append(component.sorted())
        }
        for folder in folders.sorted() where index[folder] == nil { visit(folder) }
        return result
    }

    /// The shortest cycle from `start` back to it through `within` (breadth first).
    private func shortestCycle(through start: String, within: Set<String>) -> [String] {
        var previous: [String: String] = [:]
        var queue = [start]
        var head = 0
        while head < queue.count {
            let folder = queue[head]
            head += 1
            for next in dependencies(of: folder) where within.contains(next) {
                if next == start {
                    var path = [start]
                    var at = folder
                    while at != start {
                        path.append(at)
                        at = previous[at]!
                    }
                    path.append(start)
                    return path.reversed()
                }
                if previous[next] == nil {
                    previous[next] = folder
                    queue.append(next)
                }
            }
        }
        return []
    }
}

/// The identifiers of Swift source, with what the folder graph needs to know of each.
enum SwiftTokens {
    struct Token {
        var name: String
        var line: Int
        /// Preceded by `.`: a member (`Outer.Inner`, `.case`), not a type of its own.
        var afterDot: Bool
        /// Braces open around it; 0 at the top level of the file.
        var depth: Int
    }

    private enum Mode {
        /// Code; `parentheses` open since an interpolation began, so its `)` is known.
        case code(parentheses: Int)
        /// A string literal with `hashes` `#`s around it (`#"…"#`), one line or `"""` many.
        case string(hashes: Int, multiline: Bool)
    }

    /// Identifiers outside comments and string literals (interpolations are code).
    static func scan(_ text: String) -> [Token] {
        let bytes = Array(text.utf8)
        var tokens: [Token] = []
        var modes: [Mode] = [.code(parentheses: 0)]
        var i = 0
        var line = 1
        var depth = 0
        var lastSignificant: UInt8 = 0
        func starts(_ literal: String, at position: Int) -> Bool {
            let pattern = Array(literal.utf8)
            guard position + pattern.count <= bytes.count else { return false }
            return bytes[position..<position + pattern.count].elementsEqual(pattern)
        }
        func isIdentifier(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x5F
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x0A { line += 1 }
            switch modes[modes.count - 1] {
            case .string(let hashes, let multiline):
                let closing = (multiline ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
                if byte == 0x5C {  // backslash
                    let interpolation = "\\" + String(repeating: "#", count: hashes) + "("
                    if starts(interpolation, at: i) {
                        modes.append(.code(parentheses: 0))
                        i += interpolation.utf8.count
                        lastSignificant = 0x28
                    } else {
                        if hashes == 0, i + 1 < bytes.count, bytes[i + 1] == 0x0A { line += 1 }
                        i += hashes == 0 ? 2 : 1
                    }
                } else if starts(closing, at: i) {
                    modes.removeLast()
                    i += closing.utf8.count
                    lastSignificant = 0x22
                } else {
                    i += 1
                }
            case .code(let parentheses):
                if starts("//", at: i) {
                    while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                } else if starts("/*", at: i) {
                    var nesting = 0
                    repeat {
                        if starts("/*", at: i) {
                            nesting += 1
                            i += 2
                        } else if starts("*/", at: i) {
                            nesting -= 1
                            i += 2
                        } else {
                            if bytes[i] == 0x0A { line += 1 }
                            i += 1
                        }
                    } while nesting > 0 && i < bytes.count
                } else if byte == 0x22 || byte == 0x23 {  // " or #
                    var quote = i
                    while quote < bytes.count, bytes[quote] == 0x23 { quote += 1 }
                    if quote < bytes.count, bytes[quote] == 0x22 {
                        let multiline = starts("\"\"\"", at: quote)
                        modes.append(.string(hashes: quote - i, multiline: multiline))
                        i = quote + (multiline ? 3 : 1)
                    } else {
                        i += 1
                        lastSignificant = byte
                    }
                } else if byte == 0x28 {
                    modes[modes.count - 1] = .code(parentheses: parentheses + 1)
                    i += 1
                    lastSignificant = byte
                } else if byte == 0x29 {
                    if parentheses == 0, modes.count > 1 {
                        modes.removeLast()
                    } else {
                        modes[modes.count - 1] = .code(parentheses: parentheses - 1)
                    }
                    i += 1
                    lastSignificant = byte
                } else if byte >= 0x30 && byte <= 0x39 {  // a number: `1_000`, `0x5F`
                    while i < bytes.count, isIdentifier(bytes[i]) { i += 1 }
                    lastSignificant = byte
                } else if byte == 0x60 || isIdentifier(byte) {
                    let quoted = byte == 0x60
                    let start = quoted ? i + 1 : i
                    var end = start
                    while end < bytes.count, isIdentifier(bytes[end]) { end += 1 }
                    let name = String(decoding: bytes[start..<end], as: UTF8.self)
                    tokens.append(Token(name: name, line: line, afterDot: lastSignificant == 0x2E, depth: depth))
                    i = quoted && end < bytes.count && bytes[end] == 0x60 ? end + 1 : end
                    lastSignificant = 0x61
                } else {
                    if byte == 0x7B { depth += 1 }
                    if byte == 0x7D { depth -= 1 }
                    if byte != 0x20 && byte != 0x0A && byte != 0x09 && byte != 0x0D { lastSignificant = byte }
                    i += 1
                }
            }
        }
        return tokens
    }
}
