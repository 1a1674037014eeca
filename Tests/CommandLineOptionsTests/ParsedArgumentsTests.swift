import CommandLineOptions
import Testing

/// The shared parser's syntax: what it accepts, and errors that name the bad flag and the way out.
@Suite struct ParsedArgumentsTests {
    static let options = [
        OptionSpec("rate", .value(placeholder: "R"), "requests per second", default: "20"),
        OptionSpec("dry-run", .flag, "change nothing"),
        OptionSpec("bundle-id", .repeatable(placeholder: "ID"), "accepted bundle id"),
    ]

    static func parse(_ arguments: [String], command: String? = "run") throws(OptionError) -> ParsedArguments {
        try ParsedArguments(program: "tool", command: command, arguments: arguments, options: options)
    }

    static func error(_ arguments: [String], command: String? = "run") -> OptionError? {
        do {
            _ = try parse(arguments, command: command)
            return nil
        } catch {
            return error
        }
    }

    @Test func valuesComeSeparateOrAfterAnEqualsSign() throws {
        #expect(try Self.parse(["--rate", "5"]).value("rate") == "5")
        #expect(try Self.parse(["--rate=5"]).value("rate") == "5")
        #expect(try Self.parse(["--rate=a=b"]).value("rate") == "a=b")
        #expect(try Self.parse(["--rate="]).value("rate") == "")
        #expect(try Self.parse(["--rate", "-1"]).value("rate") == "-1")
        #expect(try Self.parse([]).value("rate") == nil)
    }

    @Test func flagsAndPositionals() throws {
        let parsed = try Self.parse(["a", "--dry-run", "-", "--", "--rate", "b"])
        #expect(parsed.has("dry-run"))
        #expect(!parsed.has("rate"))
        #expect(parsed.positionals == ["a", "-", "--rate", "b"])
        #expect(!parsed.wantsHelp)
    }

    @Test func repeatableOptionsKeepEveryValueInOrder() throws {
        let parsed = try Self.parse(["--bundle-id", "a", "--bundle-id=b", "--bundle-id", "c"])
        #expect(parsed.all("bundle-id") == ["a", "b", "c"])
        #expect(parsed.value("bundle-id") == "c")
        #expect(parsed.all("rate") == [])
    }

    @Test func helpIsNotedWhereverItAppears() throws {
        #expect(try Self.parse(["--rate", "5", "--help"]).wantsHelp)
        #expect(try Self.parse(["-h"]).wantsHelp)
        #expect(Self.error(["--help", "--bogus"]) != nil, "the other arguments are still checked")
    }

    @Test(
        arguments: [
            (["--bogus"], "unknown option '--bogus' for 'run'"),
            (["--bogus=1"], "unknown option '--bogus' for 'run'"),
            (["-x"], "unknown option '-x' for 'run'; options are spelled --name"),
            (["--rate"], "option '--rate R' needs a value"),
            (["--rate", "--dry-run"], "option '--rate R' needs a value"),
            (["--dry-run=yes"], "option '--dry-run' is a flag and takes no value"),
            (["--rate", "5", "--rate", "6"], "option '--rate' given more than once"),
            (["--dry-run", "--dry-run"], "option '--dry-run' given more than once"),
        ] as [([String], String)])
    func refusalsNameTheFlagAndTheWayOut(arguments: [String], message: String) throws {
        let error = try #require(Self.error(arguments))
        #expect(error.message == message)
        #expect(error.invocation == "tool run")
        #expect(error.description == "\(message) (see 'tool run --help')")
    }

    @Test func aProgramWithoutCommandsPointsAtItsOwnHelp() throws {
        let error = try #require(Self.error(["--bogus"], command: nil))
        #expect(error.description == "unknown option '--bogus' (see 'tool --help')")
        let parsed = try Self.parse(["stray"], command: nil)
        #expect(throws: OptionError("unexpected argument 'stray'", invocation: "tool")) {
            try parsed.expectNoPositionals()
        }
        try Self.parse(["--rate", "1"], command: nil).expectNoPositionals()
    }
}
