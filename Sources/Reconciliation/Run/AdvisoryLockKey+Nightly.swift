import Postgres

extension AdvisoryLockKey {
    /// The shard's nightly lock (CONTRACT §6, "One nightly run at a time"), held on a session of its own
    /// for the whole run: `run` takes it, and `revert` of a night takes it so it never interleaves with
    /// one. `shard` is `I/N`.
    public static func nightly(shard: String) -> AdvisoryLockKey {
        AdvisoryLockKey(name: "receipt-recon:nightly:\(shard)")
    }
}
