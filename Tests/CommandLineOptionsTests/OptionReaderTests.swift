import CommandLineOptions
import Testing

/// Typed reads through the shared value parsers, with the program's own error type, and the help layout.
@Suite struct OptionReaderTests {
    struct ProgramError: Error, Equatable {
        let text: String
    }

    static let options = [
        OptionSpec("rate", .value(placeholder: "R"), "requests per second", default: "20"),
        OptionSpec("mode", .value(placeholder: "a|b"), "how"),
        OptionSpec("keep", .flag, "keep everything"),
        OptionSpec("tag", .repeatable(placeholder: "T"), "a tag"),
    ]

    static func reader(_ arguments: [String]) throws -> OptionReader<ProgramError> {
        let parsed = try ParsedArguments(program: "tool", arguments: arguments, options: options)
        return OptionReader(parsed) { ProgramError(text: $0.description) }
    }

    @Test func absentOptionsReadAsNil() throws {
        let read = try Self.reader([])
        #expect(try read.positiveNumber("rate") == nil)
        #expect(try read.choice("mode", ["a", "b"]) == nil)
    }

    @Test func valuesAreConverted() throws {
        let read = try Self.reader(["--rate=2.5", "--mode", "b"])
        #expect(try read.positiveNumber("rate") == 2.5)
        #expect(try read.choice("mode", ["a", "b"]) == "b")
        #expect(try read.value("mode") { _, text in text.uppercased() } == "B")
    }

    @Test func aMalformedValueBecomesTheProgramsErrorNamingTheFlag() throws {
        let read = try Self.reader(["--rate", "fast", "--mode", "c"])
        #expect(throws: ProgramError(text: "--rate expects a number greater than 0, got 'fast' (see 'tool --help')")) {
            try read.positiveNumber("rate")
        }
        #expect(throws: ProgramError(text: "--mode expects 'a' or 'b', got 'c' (see 'tool --help')")) {
            try read.choice("mode", ["a", "b"])
        }
    }

    @Test(arguments: [
        ("0", true), ("1.5", true), ("-1", false), ("inf", false), ("nan", false), ("x", false),
    ])
    func nonNegativeNumbersIncludeZero(text: String, accepted: Bool) throws {
        let parse = ValueParsers(invocation: "tool")
        let value = try? parse.nonNegativeNumber("rate", text)
        #expect((value != nil) == accepted, "\(text)")
    }

    @Test func integersStayInTheirRange() throws {
        let parse = ValueParsers(invocation: "tool")
        #expect(try parse.integer("n", "7", in: 1...10) == 7)
        let tooBig = OptionError(
            "--n expects a whole number of at least 1 and at most 10, got '11'", invocation: "tool")
        #expect(throws: tooBig) { try parse.integer("n", "11", in: 1...10) }
        #expect(throws: OptionError("--n expects a whole number of at least 1, got '0'", invocation: "tool")) {
            try parse.integer("n", "0", in: 1...Int.max)
        }
        #expect(throws: OptionError("--p expects a path, got ''", invocation: "tool")) {
            try parse.nonEmpty("p", "", "a path")
        }
    }

    @Test func helpListsEveryOptionWithItsDefaultThenTheSections() {
        let help = HelpText(
            usage: HelpText.synopsis("tool", Self.options),
            paragraphs: ["Does one thing.", ""],
            options: Self.options,
            sections: [HelpText.Section("EXIT CODES:", rows: [("0", "done"), ("64", "usage error")], columnWidth: 3)]
        ).text
        #expect(
            help == """
                USAGE: tool [--rate R] [--mode a|b] [--keep] [--tag T]...

                Does one thing.

                OPTIONS:
                  --rate R    requests per second (default: 20)
                  --mode a|b  how
                  --keep      keep everything
                  --tag T     a tag
                  --help      show this help

                EXIT CODES:
                  0    done
                  64   usage error

                """)
    }
}
