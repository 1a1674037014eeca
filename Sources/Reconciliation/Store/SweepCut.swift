import Postgres

/// Where the sweep's choice ends: the sort key of the q-th user it takes. The sweep takes the q users
/// verified longest ago, by day, and within the day the quota cuts the soonest to end (`RunQueue`);
/// a user is taken exactly when its key is at most the cut's, so a fill in ranges (`RunQueueFill`)
/// takes in each range the users a single sort of every user would have taken.
///
/// The key is three values, compared in order: the UTC day of the last verification, the soonest
/// end of an active `app_store` entitlement (none: after every end, as the sort's NULLS LAST), the
/// user. Times are compared as integer microseconds, mapped so that ±infinity keep their places.
struct SweepCut: Equatable {
    var day: Int64
    var ends: Int64
    var userID: String

    /// The users of `recon_user_state` as `o`, each with the soonest end of its active `app_store`
    /// entitlements as `k.ends` (read once per user, and only for the users the WHERE clause keeps).
    static let keyedUsers = """
        recon_user_state o CROSS JOIN LATERAL (
            SELECT \(sortable("m.t")) AS ends FROM (
                SELECT min(e.expires_at) AS t FROM entitlements e
                WHERE e.user_id = o.user_id AND e.active AND e.source = 'app_store') m
        ) k
        """

    /// The key's day of `o`.
    static let day = sortable("date_trunc('day', o.verified_at, 'UTC')")

    /// A timestamp as a bigint that sorts as it does: microseconds since the epoch, ±infinity at the
    /// ends, and NULL (no end) after infinity. `timestamp` is evaluated more than once: a column or a
    /// function of one.
    private static func sortable(_ timestamp: String) -> String {
        """
        CASE WHEN \(timestamp) IS NULL THEN 9223372036854775807 WHEN \(timestamp) = 'infinity' THEN 9223372036854775806
          WHEN \(timestamp) = '-infinity' THEN -9223372036854775808
          ELSE (extract(epoch FROM \(timestamp)) * 1000000)::bigint END
        """
    }

    /// The cut of a sweep taking `quota` users of the shard, or nil when the shard has no more users
    /// than that (the sweep takes them all).
    static func read(quota: Int, shard: (String) -> String, on connection: PostgresConnection) throws -> SweepCut? {
        let holds = RunQueue.holdsReceipt
        // Only users up to the end of the day the quota cuts are sorted, so the entitlements are read
        // for those alone.
        let row = try connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(day) AS day, k.ends, o.user_id FROM \(keyedUsers)
                    WHERE \(shard("o.user_id")) AND \(holds("o.user_id")) AND o.verified_at < coalesce((
                        SELECT date_trunc('day', u.verified_at, 'UTC') + interval '1 day' FROM recon_user_state u
                        WHERE \(shard("u.user_id")) AND \(holds("u.user_id"))
                        ORDER BY u.verified_at, u.user_id OFFSET $1 - 1 LIMIT 1), 'infinity')
                    ORDER BY 1, 2, 3 OFFSET $1 - 1 LIMIT 1
                    """, binds: [quota.postgresBind])
        ).first
        guard let row else { return nil }
        return SweepCut(day: try row.decode("day"), ends: try row.decode("ends"), userID: try row.decode("user_id"))
    }

    /// Whether the user `o` of `keyedUsers` is taken, with the cut's values bound from `$first` on
    /// (`binds`, in that order). The day alone is tested first: it needs no entitlement read.
    static func includes(first: Int) -> String {
        """
        \(day) <= $\(first)::bigint AND (\(day), k.ends, o.user_id) <= ($\(first)::bigint, $\(first + 1)::bigint, $\(first + 2)::text)
        """
    }

    var binds: [PostgresBind] { [day.postgresBind, ends.postgresBind, userID.postgresBind] }
}
