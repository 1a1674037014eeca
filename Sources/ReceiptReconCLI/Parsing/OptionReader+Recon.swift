import CommandLineOptions
import Foundation

extension ParsedArguments {
    /// Typed reads of this command's options: nil when the option is absent, a usage error (64) when
    /// its value is malformed.
    public var read: OptionReader<CommandError> { OptionReader(self, failure: CommandError.init(usage:)) }
}

/// Reads of the job's own value kinds, through the `ValueParsers` extension in ValueParsers.swift.
extension OptionReader {
    public func age(_ option: String) throws(Failure) -> Int? {
        try value(option) { parse, text throws(OptionError) in try parse.age(option, text) }
    }

    public func instant(_ option: String) throws(Failure) -> Date? {
        try value(option) { parse, text throws(OptionError) in try parse.instant(option, text) }
    }

    public func shard(_ option: String) throws(Failure) -> (index: Int, count: Int)? {
        try value(option) { parse, text throws(OptionError) in try parse.shard(option, text) }
    }
}
