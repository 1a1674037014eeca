extension RunSummary {
    /// Records `end` in the summary: its status, exit code and reason (the finish stage and a run an error
    /// ended are the only callers).
    mutating func record(_ end: RunEnd) {
        status = end.recordedStatus ?? .failed
        exitCode = end.exitCode
        abortReason = end.reason
    }
}
