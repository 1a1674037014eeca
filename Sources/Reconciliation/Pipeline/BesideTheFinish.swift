import Foundation

/// Work of the finish that touches none of what its scans read or write (the notifications' matching),
/// run on a thread and a connection of its own while the run row's connection flags, so that a large
/// night waits for the longer of the two rather than for both. `RunFinish` waits for it before it
/// counts the run's figures, whichever way the finish ends.
///
/// Threading: `wait` may be called from any thread, any number of times; it returns once `body` has.
final class BesideTheFinish: Sendable {
    private let done = DispatchGroup()

    init(_ body: @escaping @Sendable () -> Void) {
        done.enter()
        Thread.detachNewThread { [done] in
            body()
            done.leave()
        }
    }

    func wait() { done.wait() }
}
