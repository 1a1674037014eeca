import Foundation

/// A Dockerfile read as Docker reads it: comments dropped, continued lines joined, each instruction
/// its keyword and arguments, grouped into build stages (each starting at a FROM).
struct DockerfileInstructions {
    struct Instruction: Equatable {
        let keyword: String
        let arguments: String
    }

    struct Stage {
        /// The FROM line's image, e.g. `debian:12-slim`.
        let image: String
        /// The `AS name`, if any.
        let name: String?
        let instructions: [Instruction]

        func all(_ keyword: String) -> [String] {
            instructions.filter { $0.keyword == keyword }.map(\.arguments)
        }

        /// The shell commands of the stage's RUN instructions, split at `&&`, `;` and `||`.
        var commands: [String] {
            all("RUN").flatMap { run in
                run.replacingOccurrences(of: "&&", with: ";").replacingOccurrences(of: "||", with: ";")
                    .split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }

        /// The packages of the stage's `apt-get install` commands, with the options each used.
        var aptInstalls: [(packages: [String], options: [String])] {
            commands.compactMap { command in
                let words = command.split(separator: " ").map(String.init)
                guard words.starts(with: ["apt-get", "install"]) else { return nil }
                let rest = words.dropFirst(2)
                return (rest.filter { !$0.hasPrefix("-") }, rest.filter { $0.hasPrefix("-") })
            }
        }
    }

    let stages: [Stage]

    init(_ text: String) {
        var logical: [String] = []
        var pending = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let whole = (pending + line).trimmingCharacters(in: .whitespaces)
            pending = ""
            if !whole.isEmpty { logical.append(whole) }
        }
        var stages: [Stage] = []
        var current: (image: String, name: String?, instructions: [Instruction])?
        for line in logical {
            let keyword = String(line.prefix { !$0.isWhitespace }).uppercased()
            let arguments = line.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
                .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            if keyword == "FROM" {
                if let current {
                    stages.append(Stage(image: current.image, name: current.name, instructions: current.instructions))
                }
                let words = arguments.split(separator: " ").map(String.init).filter { !$0.hasPrefix("--platform") }
                let name = words.count >= 3 && words[1].uppercased() == "AS" ? words[2] : nil
                current = (words.first ?? "", name, [])
            } else {
                current?.instructions.append(Instruction(keyword: keyword, arguments: arguments))
            }
        }
        if let current {
            stages.append(Stage(image: current.image, name: current.name, instructions: current.instructions))
        }
        self.stages = stages
    }
}
