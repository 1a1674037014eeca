import Foundation

/// `report --compare RUN_A RUN_B`: the users whose decisions differ between two runs, so that an
/// operator can switch backends on evidence (docs/operations.md, "Switching backends"): dry-run one
/// backend beside the other over the same users, then compare.
///
/// A user's decisions are the set of (entitlement, action, reason) of the run's corrections, applied
/// or not, and the set of the run's flag kinds. Sets, not counts: two receipts flagged `unverified`
/// in one run and one in the other is the same verdict about the user. Pure: `RunComparison+Load`
/// reads the rows.
public struct RunComparison: Sendable, Equatable {
    /// One thing a run decided about a user.
    public enum Decision: Hashable, Comparable, Sendable, CustomStringConvertible {
        case correction(entitlement: String, action: CorrectionAction, reason: CorrectionReason)
        case flag(FlagKind)

        /// `revoke premium (refund)`, `flag refunded`; an entitlement name with control characters or
        /// spaces is quoted so the line stays one line.
        public var description: String {
            switch self {
            case .correction(let entitlement, let action, let reason):
                "\(action) \(RunComparison.printable(entitlement)) (\(reason))"
            case .flag(let kind): "flag \(kind)"
            }
        }

        /// Corrections first, by entitlement, action, reason; then flags in the vocabulary's order.
        public static func < (lhs: Decision, rhs: Decision) -> Bool {
            switch (lhs, rhs) {
            case (.correction(let a, let b, let c), .correction(let x, let y, let z)):
                (a, b.rawValue, c.rawValue) < (x, y.rawValue, z.rawValue)
            case (.correction, .flag): true
            case (.flag, .correction): false
            case (.flag(let a), .flag(let b)):
                FlagKind.allCases.firstIndex(of: a)! < FlagKind.allCases.firstIndex(of: b)!
            }
        }
    }

    /// A user the runs disagree about.
    public struct Difference: Sendable, Equatable {
        public var userID: String
        /// What run A decided and run B did not, sorted.
        public var onlyInA: [Decision]
        /// What run B decided and run A did not, sorted.
        public var onlyInB: [Decision]
    }

    public var runA: Int64
    public var runB: Int64
    /// By user id.
    public var differences: [Difference]

    /// Compares the runs' decisions, given per user (users without any decision may be left out).
    public init(runA: Int64, runB: Int64, decisionsA: [String: Set<Decision>], decisionsB: [String: Set<Decision>]) {
        self.runA = runA
        self.runB = runB
        differences = Set(decisionsA.keys).union(decisionsB.keys).sorted().compactMap { user in
            let a = decisionsA[user] ?? []
            let b = decisionsB[user] ?? []
            guard a != b else { return nil }
            return Difference(userID: user, onlyInA: a.subtracting(b).sorted(), onlyInB: b.subtracting(a).sorted())
        }
    }

    /// One line per differing user, then the count.
    public var text: String {
        var lines = differences.map { difference in
            func list(_ decisions: [Decision]) -> String {
                decisions.isEmpty ? "nothing" : decisions.map(\.description).joined(separator: ", ")
            }
            return "\(Self.printable(difference.userID)): only in run \(runA): \(list(difference.onlyInA)); "
                + "only in run \(runB): \(list(difference.onlyInB))"
        }
        let users = differences.count == 1 ? "1 user differs" : "\(differences.count) users differ"
        lines.append("\(users) between run \(runA) and run \(runB)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The same as one JSON object (sorted keys):
    /// `{"runA", "runB", "differingUsers", "users": [{"userId", "onlyInA", "onlyInB"}]}`, each side
    /// `{"corrections": [{"entitlement", "action", "reason"}], "flags": [kind]}`.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Printed(self))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A name as it can sit in a line of text: as it is, or quoted with escapes when it is empty or
    /// holds spaces, quotes or control characters.
    static func printable(_ name: String) -> String {
        let plain =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                !$0.properties.isWhitespace && $0.value >= 0x20 && $0 != "\"" && $0 != "\u{7F}"
            }
        return plain ? name : name.debugDescription
    }

    private struct Printed: Encodable {
        struct Side: Encodable {
            struct Correction: Encodable {
                let entitlement: String
                let action: CorrectionAction
                let reason: CorrectionReason
            }
            var corrections: [Correction] = []
            var flags: [FlagKind] = []

            init(_ decisions: [Decision]) {
                for decision in decisions {
                    switch decision {
                    case .correction(let entitlement, let action, let reason):
                        corrections.append(Correction(entitlement: entitlement, action: action, reason: reason))
                    case .flag(let kind): flags.append(kind)
                    }
                }
            }
        }
        struct User: Encodable {
            let userId: String
            let onlyInA: Side
            let onlyInB: Side
        }
        let runA: Int64
        let runB: Int64
        let differingUsers: Int
        let users: [User]

        init(_ comparison: RunComparison) {
            runA = comparison.runA
            runB = comparison.runB
            differingUsers = comparison.differences.count
            users = comparison.differences.map {
                User(userId: $0.userID, onlyInA: Side($0.onlyInA), onlyInB: Side($0.onlyInB))
            }
        }
    }
}
