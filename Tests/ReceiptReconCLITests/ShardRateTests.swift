import Foundation
import Postgres
import TestSupport
import Testing

/// Apple's limits are per app: N shards at the default `--rate` each would ask N times what one run
/// may. With `--shard I/N` and no `--rate`, each shard asks for 20/N, and says so.
@Suite struct ShardRateTests {
    static func run(_ database: TestDatabase, _ apple: ScriptedAppleServer, _ extra: [String]) throws
        -> ReceiptReconBinary.Result
    {
        try ReceiptReconBinary.run(
            ["run", "--older-than", "0", "--as-of", RunCommandTests.asOf, "--max-attempts", "1"] + extra,
            environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
    }

    /// The `run.started` line of a run's stderr.
    static func started(_ result: ReceiptReconBinary.Result) -> String {
        result.stderr.split(separator: "\n").first { $0.contains("event=run.started") }.map(String.init) ?? ""
    }

    static func recorded(_ database: TestDatabase, shard: String) throws -> (rate: String?, basis: String?) {
        let row = try database.connect().query(
            """
            SELECT options->>'rate' AS rate, options->>'rateBasis' AS basis FROM recon_runs
            WHERE shard = \(shard) ORDER BY id DESC LIMIT 1
            """
        ).first
        return (try row?.decode("rate"), try row?.decode("basis"))
    }

    @Test func shardsShareTheDefaultRateAndSaySo() throws {
        try RunCommandTests.drifted { apple, database in

            let quarter = try Self.run(database, apple, ["--shard", "1/4"])
            #expect([0, 1].contains(quarter.status), "\(quarter.output)")
            let line = Self.started(quarter)
            #expect(line.contains(" rate=5 "), "\(line)")
            #expect(line.contains("rate_basis=\"default 20/s divided among 4 shards\""), "\(line)")
            let recorded = try Self.recorded(database, shard: "1/4")
            #expect(recorded.rate.flatMap(Double.init) == 5)
            #expect(recorded.basis == "default 20/s divided among 4 shards")

            let thirds = try Self.run(database, apple, ["--shard", "2/3"])
            #expect(Self.started(thirds).contains(" rate=6.667 "), "\(Self.started(thirds))")

            // Told otherwise: --rate is each shard's own.
            let told = try Self.run(database, apple, ["--shard", "0/4", "--rate", "12"])
            #expect(Self.started(told).contains(" rate=12 rate_basis=--rate"), "\(Self.started(told))")
            #expect(try Self.recorded(database, shard: "0/4").basis == "--rate")

            let whole = try Self.run(database, apple, [])
            #expect(Self.started(whole).contains(" rate=20 rate_basis=default"), "\(Self.started(whole))")
        }
    }

    @Test func runHelpSaysShardsDivideTheDefault() throws {
        let help = try ReceiptReconBinary.run(["run", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(text.contains("--shard I/N (N > 1) divides the default by N"), "\(help.stdout)")
        #expect(text.contains("20/N with --shard I/N"), "\(help.stdout)")
    }
}
