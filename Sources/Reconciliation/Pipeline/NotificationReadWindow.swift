/// How many pieces of the notification history may be read at once: memory holds every outstanding
/// piece's notifications until its turn to be stored, so the window narrows as the pieces grow. A piece
/// is an hour of history, and its notifications grow with the app's users (about 95 at 100,000 users
/// with 2 % changing a day, ten times that at a million), each a few kilobytes decoded with its signed
/// transaction and renewal info: a fixed number of pieces read ahead makes the job's memory grow with
/// the app (docs/benchmarks.md, "Measurements behind the code").
///
/// Until a piece was taken nothing is known of their size, so the read starts with one; then it allows
/// as many as keep the notifications held near `held`, reckoned by the largest piece so far, between one
/// and `maximum`. Small histories keep the full window (their pages are what Apple's latency costs);
/// a dense one is read a piece at a time, still at Apple's rate, its pages many enough to fill it.
///
/// Threading: the notification read's thread only.
final class NotificationReadWindow {
    /// Notifications the read aims to hold at most in pieces read ahead.
    static let held = 800

    let maximum: Int
    private var largestPiece: Int?

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// A piece was taken with `notifications`.
    func took(_ notifications: Int) {
        largestPiece = max(largestPiece ?? 0, notifications)
    }

    /// The pieces that may be outstanding now.
    var pieces: Int {
        guard let largestPiece else { return 1 }
        return max(1, min(maximum, Self.held / max(1, largestPiece)))
    }
}
