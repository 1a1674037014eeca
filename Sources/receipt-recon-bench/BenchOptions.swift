import Foundation

/// The bench's command line, validated: the world, the simulated Apple, and the job's knobs.
struct BenchOptions: Sendable, Equatable {
    /// About this many receipt rows are seeded (`simulator seed --receipts`).
    var receipts = 100_000
    /// The job's `--rate`, and the simulator's `--rate-limit`.
    var rate = 400.0
    /// The job's `--concurrency`.
    var concurrency = 64
    var latencyMilliseconds = 100
    var jitterMilliseconds = 20
    /// The world's seed (`simulator seed/serve --seed`).
    var seed: UInt64 = 1
    /// The instant the world is seen at and the job judges expiry against: fixed by default, so two
    /// benches with the same options run against the same world.
    var asOf = "2026-11-01T00:00:00Z"
    /// Passed to `run` as `--http-client X` only when given.
    var httpClient: String?
    /// Further arguments for `run`, in order.
    var jobArguments: [String] = []
    /// The `receipt-recon` to measure; nil: the one beside this executable.
    var jobBinary: String?
    /// Leave the cluster (and the bench's files) in place for inspection.
    var keep = false
    var wantsHelp = false

    static let usage = "receipt-recon-bench [--receipts N] [--rate R] [--concurrency C] [--latency-ms L] [--jitter-ms J] "
        + "[--seed S] [--as-of T] [--http-client X] [--job-arg ARG]... [--job-binary PATH] [--keep]"

    static let help = """
        usage: \(usage)

        Measures 'receipt-recon run' end to end: starts a throwaway PostgreSQL cluster (default durability:
        fsync and synchronous_commit on), seeds about N receipts with 'receipt-recon simulator seed', starts
        'receipt-recon simulator serve' (latency L ms + uniform jitter up to J ms, no faults, rate limit R:
        any request above R/s is answered 429 and counted), runs 'receipt-recon run --older-than 0 --rate R
        --concurrency C --json' as a separate process, then prints one key=value per line on stdout.
        Progress goes to stderr. Everything it started is stopped and removed at the end, also on failure.

        options:
          --receipts N       receipts to seed (about; the world is built in whole users)   default 100000
          --rate R           the job's --rate and the simulator's --rate-limit, requests/s  default 400
          --concurrency C    the job's --concurrency                                         default 64
          --latency-ms L     the simulator's fixed latency                                   default 100
          --jitter-ms J      the simulator's extra latency, uniform in [0, J]                default 20
          --seed S           the world's seed                                                default 1
          --as-of T          the world's instant and the job's --as-of (ISO 8601)          default 2026-11-01T00:00:00Z
          --http-client X    pass --http-client X to 'run'                                   default: not passed
          --job-arg ARG      pass ARG to 'run' (repeatable, in order)
          --job-binary PATH  the receipt-recon to measure            default: receipt-recon beside this executable
          --keep             keep the cluster and the bench's files; print how to stop and remove them
          --help             this text

        keys (the first eight always, in this order):
          throughput_ratio            receipts_per_second / R
          receipts_per_second         receipts the job processed / wall_seconds
          cpu_ms_per_1k_receipts      the job process's user + system CPU, ms per 1000 receipts processed
          peak_rss_mb                 the job process's own peak resident memory, MiB (never the bench's)
          apple_requests_per_receipt  verifyReceipt requests the simulator received / receipts processed
          over_limit_429              requests the simulator answered 429 (above R/s)
          db_seconds                  seconds the job spent waiting on PostgreSQL ('run --json' databaseSeconds)
          wall_seconds                the 'run' process, from spawn to exit

        exit codes: 0 measured; 1 the job failed (exit other than 0 or 1) or a required key could not be
        measured; 64 usage error; 69 PostgreSQL, the receipt-recon executable or the simulator unavailable;
        70 internal error.
        """

    /// Parses the arguments after the program name.
    /// - Throws: `BenchError.usage` with a one-line reason.
    init(_ arguments: [String]) throws(BenchError) {
        var index = 0
        func value(for name: String, inline: String?) throws(BenchError) -> String {
            if let inline { return inline }
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw .usage("option '--\(name)' needs a value")
            }
            index += 1
            return arguments[index - 1]
        }
        var seen: Set<String> = []
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw .usage("unexpected argument '\(argument)'")
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            if name != "job-arg" {
                guard seen.insert(name).inserted else { throw .usage("option '--\(name)' given twice") }
            }
            switch name {
            case "receipts": receipts = try Self.integer(name, try value(for: name, inline: inline), in: 1...20_000_000)
            case "rate": rate = try Self.positive(name, try value(for: name, inline: inline))
            case "concurrency": concurrency = try Self.integer(name, try value(for: name, inline: inline), in: 1...1024)
            case "latency-ms": latencyMilliseconds = try Self.integer(name, try value(for: name, inline: inline), in: 0...600_000)
            case "jitter-ms": jitterMilliseconds = try Self.integer(name, try value(for: name, inline: inline), in: 0...600_000)
            case "seed":
                let text = try value(for: name, inline: inline)
                guard let number = UInt64(text) else { throw .usage("--seed needs a whole number ≥ 0, not '\(text)'") }
                seed = number
            case "as-of":
                let text = try value(for: name, inline: inline)
                guard Self.isInstant(text) else {
                    throw .usage("--as-of needs an ISO 8601 instant such as 2026-11-01T00:00:00Z, not '\(text)'")
                }
                asOf = text
            case "http-client":
                let text = try value(for: name, inline: inline)
                guard !text.isEmpty else { throw .usage("--http-client needs a value") }
                httpClient = text
            case "job-arg": jobArguments.append(try value(for: name, inline: inline))
            case "job-binary":
                let text = try value(for: name, inline: inline)
                guard !text.isEmpty else { throw .usage("--job-binary needs a path") }
                jobBinary = text
            case "keep":
                guard inline == nil else { throw .usage("option '--keep' is a flag and takes no value") }
                keep = true
            default:
                throw .usage("unknown option '--\(name)'")
            }
        }
    }

    init() {}

    private static func integer(_ name: String, _ text: String, in range: ClosedRange<Int>) throws(BenchError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw .usage("--\(name) needs a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return number
    }

    private static func positive(_ name: String, _ text: String) throws(BenchError) -> Double {
        guard let number = Double(text), number.isFinite, number > 0 else {
            throw .usage("--\(name) needs a number > 0, not '\(text)'")
        }
        return number
    }

    private static func isInstant(_ text: String) -> Bool {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return plain.date(from: text) != nil || fractional.date(from: text) != nil
    }

    /// `R` as the job and the simulator are given it: `400`, not `400.0`.
    var rateText: String {
        rate == rate.rounded() && rate < 1e15 ? String(Int64(rate)) : String(rate)
    }
}
