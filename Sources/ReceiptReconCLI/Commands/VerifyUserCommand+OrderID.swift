import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

/// `verify-user --order-id ID`: support's way in from the order id on the customer's App Store receipt
/// email (CONTRACT §3). Apple's Look Up Order ID names the order's transactions; the users whose stored
/// rows hold them are each verified exactly as `verify-user USER_ID` verifies one.
extension VerifyUserCommand {
    static let orderIDDiscussion = """
        With --order-id ID (instead of USER_ID) it asks Apple's Look Up Order ID (the App Store Server API; \
        the key is needed whatever --backend says), lists the order's transactions, finds the users whose \
        stored rows hold them (the transactions the job recorded, else the receipts stored since the \
        purchase) and verifies each as 'verify-user USER_ID' does. An order id Apple calls invalid, or whose \
        transactions no stored row holds, exits 65 saying so, with Apple's transactions listed.
        """

    /// `--order-id`, checked: letters and digits only, and not beside a USER_ID or `--explain`.
    /// - Throws: a usage error (64).
    static func orderID(_ arguments: ParsedArguments) throws(CommandError) -> String? {
        let settings = SettingResolver(arguments, environment: [:])
        guard let orderID = try settings.value(VerifyUserSettings.orderID) else { return nil }
        guard arguments.positionals.isEmpty else {
            throw .usage(
                "--order-id finds the users itself: give either USER_ID or --order-id ID, not both",
                command: "verify-user")
        }
        if try settings.value(VerifyUserSettings.explain) {
            throw .usage("--explain takes a USER_ID, not --order-id", command: "verify-user")
        }
        guard ServerAPIClient.isWellFormedOrderID(orderID) else {
            throw .usage(
                "--order-id must be the order id as Apple's receipt email prints it: 1 to 32 letters and digits "
                    + "(e.g. MK5TTTVWJH)",
                command: "verify-user")
        }
        return orderID
    }

    /// `--json`: what is printed is one JSON object.
    var json: Bool { options[OutputSettings.json] }

    /// Look Up Order ID is the App Store Server API's: without its key there is nothing to ask with.
    /// - Throws: a configuration error (78) naming what is missing.
    static func requireServerAPI(_ configuration: Configuration) throws(CommandError) {
        guard configuration.serverAPI.backend == .serverAPI else {
            throw .configuration(
                "verify-user --order-id asks the App Store Server API's Look Up Order ID: set APPLE_API_KEY_FILE "
                    + "(or --api-key-file), APPLE_API_KEY_ID and APPLE_API_ISSUER_ID (docs/server-api.md), and "
                    + "--backend server-api (RECON_BACKEND) where verify-receipt is named")
        }
    }

    /// Asks Apple about `orderID`, then verifies every user holding its transactions, one run each.
    /// - Returns: the most severe exit code of the users' runs; 65 when Apple calls the order id invalid
    ///   or no stored row holds its transactions.
    /// - Throws: 69 when Apple gave no answer (or the hour's budget is spent), 78 when Apple refuses the key.
    func verifyOrder(_ orderID: String, engine: ReconciliationEngine, shutdown: ShutdownSignal, console: Console)
        throws -> ExitCode
    {
        try engine.requireReadyDatabase()
        guard let answer = engine.lookUpOrder(orderID) else {
            throw CommandError.configuration("verify-user --order-id needs --backend server-api")
        }
        let transactions: [SignedTransaction]
        let environment: AppStoreEnvironment
        switch answer {
        case .configuration(let detail):
            throw CommandError.configuration("verify-user --order-id \(orderID): \(detail)")
        case .unverified(let detail):
            throw CommandError(
                .unavailable,
                "verify-user --order-id \(orderID): Apple's Look Up Order ID gave no answer (\(detail)); "
                    + "nothing was verified: try again later")
        case .invalid(let detail):
            let report = OrderLookupReport(orderID: orderID, lookup: .invalid)
            console.write(json ? report.json() + "\n" : report.text)
            console.error(
                "receipt-recon: verify-user: Apple says order id \(orderID) is not an order of this app (\(detail)); "
                    + "check it against the customer's receipt email (letters and digits, as printed)")
            return .dataError
        case .found(let found, let foundIn):
            (transactions, environment) = (found, foundIn)
        }
        let holders = try engine.orderHolders(of: transactions)
        let users = holders.users
        var report = OrderLookupReport(
            orderID: orderID, lookup: .valid, environment: environment, transactions: transactions, users: users)
        guard !users.isEmpty else {
            console.write(json ? report.json() + "\n" : report.text)
            if let searched = holders.searched {
                console.error(
                    "receipt-recon: verify-user: no stored row found holding the \(transactions.count) transaction(s) "
                        + "of order \(orderID) (listed above) in \(searched): verify the customer's user id with "
                        + "'verify-user USER_ID'; nothing was verified")
                return .dataError
            }
            console.error(
                "receipt-recon: verify-user: no stored row holds the \(transactions.count) transaction(s) of order "
                    + "\(orderID) (listed above): the app never stored the purchase, or stored it under an id this "
                    + "job does not read; nothing was verified")
            return .dataError
        }
        if !json { console.write(report.text) }
        var exitCode = ExitCode.success
        for user in users {
            guard !shutdown.isRequested else {
                throw CommandError(.tempFail, "verify-user --order-id \(orderID): interrupted before user '\(user)'")
            }
            guard let verified = try verification(of: user, engine: engine) else {
                // A user whose rows went away since the job recorded the transactions: nothing to verify.
                report.vanished.append(user)
                if !json {
                    console.write("User '\(user)' has no receipts and no entitlements any more: not verified.\n")
                }
                continue
            }
            if json {
                report.reports.append(verified.output.trimmingCharacters(in: .newlines))
            } else {
                console.write(verified.output)
            }
            if verified.exitCode.rawValue > exitCode.rawValue { exitCode = verified.exitCode }
        }
        if json { console.print(report.json()) }
        return exitCode
    }
}
