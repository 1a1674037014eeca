import Foundation
import Postgres

/// The seeded world's expectation (`simulator seed --expected FILE`) against what the last nightly run
/// that was not a dry run did: the corrections it applied, the flags it raised, the rows it left
/// unverified (and whether permanently). Exact means no difference in any of the three.
struct WorldExpectationCheck {
    struct Comparison {
        let label: String
        let expected: Set<String>
        let got: Set<String>

        var line: String {
            "\(label): \(expected.count) expected, \(got.count) found, "
                + "\(expected.subtracting(got).count) missing, \(got.subtracting(expected).count) unexpected"
        }

        var differences: String {
            "\(label) missing \(expected.subtracting(got).sorted().prefix(10)), "
                + "unexpected \(got.subtracting(expected).sorted().prefix(10))"
        }
    }

    let runID: Int64
    let comparisons: [Comparison]

    init(expectedFile: URL, connection: PostgresConnection) throws {
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: expectedFile)) as? [String: Any] ?? [:]
        func entries(_ key: String, _ fields: [String]) -> Set<String> {
            Set(
                (expected[key] as? [[String: Any]] ?? []).map { entry in
                    fields.map { entry[$0] as? String ?? "?" }.joined(separator: " ")
                })
        }
        func rows(_ sql: String) throws -> Set<String> {
            Set(try connection.query(PostgresQuery(unsafeSQL: sql)).map { try $0.decode(at: 0, as: String.self) })
        }
        runID =
            try connection.query("SELECT max(id) FROM recon_runs WHERE kind = 'nightly' AND NOT dry_run").first?
            .decode(at: 0, as: Int64.self) ?? 0
        comparisons = [
            Comparison(
                label: "corrections", expected: entries("corrections", ["user_id", "entitlement", "action"]),
                got: try rows(
                    """
                    SELECT user_id || ' ' || entitlement || ' ' || action FROM recon_corrections
                    WHERE applied AND run_id = \(runID)
                    """)),
            Comparison(
                label: "flags", expected: entries("flags", ["user_id", "kind"]),
                got: try rows("SELECT user_id || ' ' || kind FROM recon_flags WHERE run_id = \(runID)")),
            Comparison(
                label: "unverified", expected: entries("unverified", ["user_id", "kind"]),
                got: try rows(
                    """
                    SELECT user_id || ' ' || CASE WHEN detail LIKE '%(permanent: %' THEN 'permanent'
                        ELSE 'transient' END
                    FROM recon_results WHERE run_id = \(runID) AND outcome = 'unverified'
                    """)),
        ]
    }

    var isExact: Bool { comparisons.allSatisfy { $0.expected == $0.got } }

    var text: String {
        "the world's expectation against run \(runID)\n" + comparisons.map { $0.line + "\n" }.joined()
            + (isExact ? "exactly as expected\n" : "NOT as expected\n")
    }

    var differences: String { comparisons.map(\.differences).joined(separator: "; ") }
}
