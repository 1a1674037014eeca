/// The whole shape of `run --json`'s summary (`JSONSummaryShapeTests.shape`): one line a key path with
/// the kind of its value, in key order.
enum ExpectedSummaryShape {
    /// A completed verifyReceipt night of `RunCommandTests.seed`'s drifted app.
    static let verifyReceiptNight = """
        RECORD-ME

        """

    /// A completed App Store Server API night of one subscriber.
    static let serverAPINight = """
        RECORD-ME

        """

    /// A night that could not reach its database (exit 69).
    static let failedNight = """
        RECORD-ME

        """
}
