import CommandLineOptions
import ReconSchema

/// The option of `mapping`: which parts of the SQL to print.
enum MappingSettings {
    /// Every part named, in the order given; empty: all three.
    static let parts = Setting<[MappingSQL.Part]>(
        option: OptionSpec(
            "part", .repeatable(placeholder: "admin|schema|grants"),
            "print only this part (repeat for several), in the order above", default: "all three"),
        default: [], parse: { parse, text throws(OptionError) in [try part(parse, text)] }
    ).readingEveryFlag { parse, texts throws(OptionError) in
        var parts: [MappingSQL.Part] = []
        for text in texts { parts.append(try part(parse, text)) }
        return parts
    }

    private static func part(_ parse: ValueParsers, _ text: String) throws(OptionError) -> MappingSQL.Part {
        guard let part = MappingSQL.Part(rawValue: text) else {
            throw OptionError("--part \(text): give admin, schema or grants", invocation: parse.invocation)
        }
        return part
    }

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [parts]
}
