import Testing

@testable import Reconciliation

/// How many pieces of the notification history are read ahead: all of them while pieces are small,
/// one at a time once they are large, so the notifications held stay near `held` whatever the app's
/// size.
@Suite struct NotificationReadWindowTests {
    @Test func theReadStartsWithOnePieceUntilItKnowsTheirSize() {
        #expect(NotificationReadWindow(maximum: 8).pieces == 1)
    }

    @Test(
        "the window keeps the notifications held near the target, between one piece and the maximum",
        arguments: [
            (largest: 0, pieces: 8), (largest: 20, pieces: 8), (largest: 95, pieces: 8),
            (largest: 200, pieces: 4), (largest: 285, pieces: 2), (largest: 800, pieces: 1),
            (largest: 950, pieces: 1), (largest: 9_500, pieces: 1),
        ])
    func theWindowNarrowsAsPiecesGrow(largest: Int, pieces: Int) {
        let window = NotificationReadWindow(maximum: 8)
        window.took(largest)
        #expect(window.pieces == pieces)
    }

    @Test func theLargestPieceSoFarDecidesSoASmallPieceAfterABigOneDoesNotWidenIt() {
        let window = NotificationReadWindow(maximum: 8)
        window.took(950)
        window.took(10)
        #expect(window.pieces == 1)
    }
}
