import Foundation
import Postgres

extension RunQueue {
    /// The queued users of one reason, read ahead a page at a time in order: `ends_at` (NULL last),
    /// then `user_id`. Two keyset phases, because a row comparison never passes a NULL: the users
    /// with an end, then those without.
    struct Lane {
        struct Entry: Comparable {
            let userID: String
            let endsAt: Date?
            let reason: DueReason

            static func < (a: Entry, b: Entry) -> Bool {
                switch (a.endsAt, b.endsAt) {
                case (let x?, let y?): x < y || (x == y && a.userID < b.userID)
                case (.some, nil): true
                case (nil, .some): false
                case (nil, nil): a.userID < b.userID
                }
            }
        }

        enum Position {
            /// After (ends_at, user_id) among the users with an end; the instant as PostgreSQL wrote it, so
            /// the keyset compares exactly what is stored.
            case ending(String, String)
            /// After user_id among the users without an end.
            case open(String)
            case done
        }

        let reason: DueReason
        var position = Position.ending("-infinity", "")
        var buffer: [Entry] = []

        init(reason: DueReason) {
            self.reason = reason
        }

        var needsRefill: Bool {
            if case .done = position { return false }
            return buffer.isEmpty
        }

        /// Reads up to `count` more users, passing from the users with an end to those without.
        mutating func refill(_ count: Int, runID: Int64, on connection: PostgresConnection) throws {
            while buffer.count < count {
                let rows: PostgresRows
                switch position {
                case .done: return
                case .ending(let endsAt, let userID):
                    rows = try connection.query(
                        """
                        SELECT user_id, ends_at, ends_at::text AS ends_text FROM recon_run_queue
                        WHERE run_id = \(runID) AND reason = \(reason.rawValue) AND ends_at IS NOT NULL
                          AND (ends_at, user_id) > (\(endsAt)::timestamptz, \(userID))
                        ORDER BY ends_at, user_id LIMIT \(count - buffer.count)
                        """)
                case .open(let userID):
                    rows = try connection.query(
                        """
                        SELECT user_id, ends_at, ends_at::text AS ends_text FROM recon_run_queue
                        WHERE run_id = \(runID) AND reason = \(reason.rawValue) AND ends_at IS NULL
                          AND user_id > \(userID)
                        ORDER BY user_id LIMIT \(count - buffer.count)
                        """)
                }
                let wanted = count - buffer.count
                for row in rows {
                    let entry = Entry(
                        userID: try row.decode("user_id"), endsAt: try row.decode("ends_at"), reason: reason)
                    buffer.append(entry)
                    let text: String? = try row.decode("ends_text")
                    position = text.map { .ending($0, entry.userID) } ?? .open(entry.userID)
                }
                if rows.count < wanted {
                    if case .ending = position {
                        position = .open("")
                    } else {
                        position = .done
                    }
                }
            }
        }
    }
}
