import CLibPQ
import Foundation

/// A parsed libpq connection string (`key=value …` or a `postgresql://` URI).
///
/// Used to describe a connection target without its password, to scrub that password from libpq's
/// messages, and to derive a connection string for another database on the same server.
public struct ConnectionString: Sendable, Equatable {
    /// Options explicitly present in the string, in libpq's canonical keyword spelling.
    public private(set) var options: [String: String]

    /// Parses `text` with libpq's own parser, so every syntax libpq accepts is accepted here.
    /// - Throws: `PostgresError.invalidConnectionString`, whose message does not repeat the text.
    public init(_ text: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(text, &errorMessage) else {
            // libpq's message quotes the offending token, which may be the password: drop it.
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(
                kind: .invalidConnectionString,
                message: "the database URL is not a valid libpq connection string or postgresql:// URI "
                    + "(its text is not shown because it may contain a password); "
                    + "use 'host=… dbname=… user=…' or 'postgresql://user@host/dbname'"
            )
        }
        defer { PQconninfoFree(parsed) }
        options = ConnectionString.options(of: parsed)
    }

    init(options: [String: String]) {
        self.options = options
    }

    /// Reads every set option out of a `PQconninfoOption` array.
    static func options(of array: UnsafeMutablePointer<PQconninfoOption>) -> [String: String] {
        var options: [String: String] = [:]
        var cursor = array
        while let keyword = cursor.pointee.keyword {
            if let value = cursor.pointee.val {
                options[String(cString: keyword)] = String(cString: value)
            }
            cursor += 1
        }
        return options
    }

    /// The same options with `dbname` replaced.
    public func replacingDatabase(with name: String) -> ConnectionString {
        var copy = self
        copy.options["dbname"] = name
        return copy
    }

    /// A `key='value'` rendering that libpq parses back to the same options.
    public var rendered: String {
        options.keys.sorted().map { key in
            let value = options[key]!
                .replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'")
            return "\(key)='\(value)'"
        }.joined(separator: " ")
    }

    /// `host=… port=… dbname=… user=…` for messages: the parts an operator needs to find the server,
    /// never the password.
    public var safeDescription: String {
        ["host", "hostaddr", "port", "dbname", "user"].compactMap { key in
            options[key].flatMap { $0.isEmpty ? nil : "\(key)=\($0)" }
        }.joined(separator: " ")
    }
}

enum SecretScrubber {
    /// Replaces every occurrence of each non-empty secret in `text` with `***`.
    static func scrub(_ text: String, secrets: [String]) -> String {
        secrets.filter { $0.count >= 1 }.reduce(text) { partial, secret in
            partial.replacingOccurrences(of: secret, with: "***")
        }
    }
}
