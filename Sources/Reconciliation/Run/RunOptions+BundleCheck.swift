extension RunOptions {
    /// What `run.started` says about bundle ids: the accepted ones, comma-separated, or that there is no check.
    public var bundleCheck: String {
        bundleIDs.isEmpty ? "no bundle check" : bundleIDs.joined(separator: ",")
    }
}
