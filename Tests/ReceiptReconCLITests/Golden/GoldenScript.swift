import Foundation

/// `Golden/commands.txt`, parsed: sections of steps, each section an independent world (its own
/// databases, its own simulator, its own temporary directory), so sections can run in parallel.
///
/// The file's grammar (one step a line; `#` starts a comment line):
/// - `@section NAME`: starts a section; its records go to `expected/NAME/`.
/// - `NAME: [VAR=value…] ARGUMENTS… [<FILE]`: runs `receipt-recon ARGUMENTS…` with `VAR`s added to the
///   environment (stdin from FILE) and records its exit code, stdout and stderr as `NAME.txt`.
/// - `@database NAME`: creates the empty database `golden_SECTION_NAME` and sets `$DB` to its conninfo.
/// - `@env VAR=value…`: adds to the environment of the section's later command lines.
/// - `@env-file VAR FILE`: the same, the value being FILE's first line (an API key id the seed minted).
/// - `@serve ARGUMENTS…`: starts `receipt-recon ARGUMENTS…` in the background (the simulator) and waits
///   until `$PORT` listens; stopped at `@stop` or at the section's end. Its output is not recorded.
/// - `@stop`: stops the background process (SIGTERM) and waits for it.
/// - `@show NAME FILE`: records FILE's bytes as `NAME.txt` (an export written with `--output`).
/// - `@write FILE 'TEXT'`: writes TEXT to FILE, `\n` a newline (an env file, a mapping file).
/// - `@unordered`: the next command line's stdout is a CSV whose rows come in the order Apple's answers
///   arrived (a nightly run's corrections or flags): its rows are sorted and their first column, the
///   row id, recorded as `$ID`.
/// - `@keep-lines REGEX`: of the next command line's stdout, only the lines REGEX matches are recorded
///   (the demo, whose world is dated by the wall clock).
/// - `@expect-world NAME FILE`: checks the last non-dry nightly run of `$DB` against the expectation
///   `simulator seed --expected FILE` wrote (applied corrections, flags, unverified rows), records the
///   counts as `NAME.txt`, and fails unless they match exactly.
///
/// Tokens split at spaces; '…' quotes a token with spaces. `$TMP`, `$DB`, `$PORT` and `$CONFORMANCE`
/// are replaced in every token.
struct GoldenScript {
    enum Step: Sendable, Equatable {
        case command(Command)
        case database(String)
        case environment([String: String])
        case environmentFromFile(variable: String, file: String)
        case serve([String])
        case stop
        case show(name: String, file: String)
        case expectWorld(name: String, file: String)
        case write(file: String, text: String)
    }

    struct Command: Sendable, Equatable {
        let name: String
        let environment: [String: String]
        let arguments: [String]
        let stdin: String?
        /// As written in commands.txt, after `NAME:`.
        let line: String
        var unordered = false
        var keepLines: String?
    }

    struct Section: Sendable, CustomStringConvertible {
        let name: String
        var steps: [Step] = []
        var description: String { name }

        /// The names of the records this section writes, in order.
        var recordNames: [String] {
            steps.compactMap {
                switch $0 {
                case .command(let command): command.name
                case .show(let name, _), .expectWorld(let name, _): name
                default: nil
                }
            }
        }
    }

    struct SyntaxError: Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "commands.txt:\(line): \(message)" }
    }

    let sections: [Section]

    init(_ text: String) throws {
        var sections: [Section] = []
        var unordered = false
        var keepLines: String?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let number = index + 1
            let tokens = try Self.tokens(line, line: number)
            if tokens[0] == "@section" {
                guard tokens.count == 2 else { throw SyntaxError(line: number, message: "@section takes one name") }
                guard !sections.contains(where: { $0.name == tokens[1] }) else {
                    throw SyntaxError(line: number, message: "section '\(tokens[1])' twice")
                }
                sections.append(Section(name: tokens[1]))
                continue
            }
            guard !sections.isEmpty else { throw SyntaxError(line: number, message: "a step before any @section") }
            if tokens == ["@unordered"] {
                unordered = true
                continue
            }
            if tokens[0] == "@keep-lines", tokens.count == 2 {
                keepLines = tokens[1]
                continue
            }
            var step = try Self.step(tokens, line: line, number: number)
            if case .command(var command) = step {
                command.unordered = unordered
                command.keepLines = keepLines
                step = .command(command)
                (unordered, keepLines) = (false, nil)
            } else if unordered || keepLines != nil {
                throw SyntaxError(line: number, message: "@unordered and @keep-lines go before a command line")
            }
            if let name = Section(name: "", steps: [step]).recordNames.first,
                sections[sections.count - 1].recordNames.contains(name)
            {
                throw SyntaxError(line: number, message: "record '\(name)' twice in its section")
            }
            sections[sections.count - 1].steps.append(step)
        }
        self.sections = sections
    }

    private static func step(_ tokens: [String], line: String, number: Int) throws -> Step {
        let rest = Array(tokens.dropFirst())
        func arity(_ count: Int) throws {
            guard rest.count == count else {
                throw SyntaxError(line: number, message: "\(tokens[0]) takes \(count) argument(s)")
            }
        }
        switch tokens[0] {
        case "@database":
            try arity(1)
            return .database(rest[0])
        case "@env":
            return .environment(try assignments(rest, line: number))
        case "@env-file":
            try arity(2)
            return .environmentFromFile(variable: rest[0], file: rest[1])
        case "@serve":
            return .serve(rest)
        case "@stop":
            try arity(0)
            return .stop
        case "@show":
            try arity(2)
            return .show(name: rest[0], file: rest[1])
        case "@expect-world":
            try arity(2)
            return .expectWorld(name: rest[0], file: rest[1])
        case "@write":
            try arity(2)
            return .write(file: rest[0], text: rest[1].replacingOccurrences(of: "\\n", with: "\n"))
        case let directive where directive.hasPrefix("@"):
            throw SyntaxError(line: number, message: "unknown directive \(directive)")
        default:
            break
        }
        guard tokens[0].hasSuffix(":"), tokens[0].count > 1 else {
            throw SyntaxError(line: number, message: "a command line starts with 'NAME:'")
        }
        var arguments = rest
        var environment: [String: String] = [:]
        while let first = arguments.first, let assignment = try? assignments([first], line: number) {
            environment.merge(assignment) { $1 }
            arguments.removeFirst()
        }
        var stdin: String?
        if let last = arguments.last, last.hasPrefix("<") {
            stdin = String(last.dropFirst())
            arguments.removeLast()
        }
        let shown = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
        return .command(
            Command(
                name: String(tokens[0].dropLast()), environment: environment, arguments: arguments, stdin: stdin,
                line: shown))
    }

    /// `VAR=value` tokens; VAR in capitals, digits and underscores.
    private static func assignments(_ tokens: [String], line: Int) throws -> [String: String] {
        var result: [String: String] = [:]
        for token in tokens {
            guard let equals = token.firstIndex(of: "="),
                token[..<equals].allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }),
                equals != token.startIndex
            else { throw SyntaxError(line: line, message: "'\(token)' is not VAR=value") }
            result[String(token[..<equals])] = String(token[token.index(after: equals)...])
        }
        return result
    }

    /// Splits at spaces; a '…' span keeps its spaces (and may be empty).
    static func tokens(_ line: String, line number: Int) throws -> [String] {
        var tokens: [String] = []
        var current = ""
        var started = false
        var quoted = false
        for character in line {
            if character == "'" {
                quoted.toggle()
                started = true
            } else if character == " " && !quoted {
                if started { tokens.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        guard !quoted else { throw SyntaxError(line: number, message: "unterminated quote") }
        if started { tokens.append(current) }
        return tokens
    }
}
