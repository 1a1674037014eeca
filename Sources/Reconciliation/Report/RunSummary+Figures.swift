extension RunSummary {
    /// The one rule for a run's figures, from what its process counted (this summary) and what its
    /// rows say (`written`), at every end of a run: finished, failed, or found abandoned.
    ///
    /// A run that went through every due user keeps its counters (they are what committed: every
    /// batch did) and takes from its rows only what the end-of-run scans added (flags, and the
    /// corrections and refunds beside them). Any other run takes every figure its rows can tell: a
    /// batch may have committed on the server while its writer lost the answer, or been counted and
    /// then lost with the connection, and a killed process never counted at all. What only the
    /// process knew (what it selected, its Apple traffic) stays as counted.
    mutating func settleFigures(with written: WrittenFigures, ranToTheEnd: Bool) {
        permanentlyUnverified = written.permanentlyUnverified
        newlyPermanentlyUnverified = written.newlyPermanentlyUnverified
        if ranToTheEnd {
            corrections = written.corrections
            flags = written.flags
            refundedAmount = written.refundedAmount
            reversedRefundAmount = written.reversedRefundAmount
        } else {
            adopt(written)
        }
    }
}
