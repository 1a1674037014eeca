import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// Shorthands for reading lookups and scripting transactions in the App Store Server API tests.
extension ServerAPILookup {
    var found: (value: Value, environment: AppStoreEnvironment)? {
        if case .found(let value, let environment) = self { return (value, environment) }
        return nil
    }

    var unverifiedDetail: String? {
        if case .unverified(let detail) = self { return detail }
        return nil
    }

    var configurationDetail: String? {
        if case .configuration(let detail) = self { return detail }
        return nil
    }

    var isNotFound: Bool {
        if case .notFound = self { return true }
        return false
    }

    var notFoundDetail: String? {
        if case .notFound(let detail, _) = self { return detail }
        return nil
    }

    var gone: (code: Int, detail: String)? {
        if case .gone(let code, let detail) = self { return (code, detail) }
        return nil
    }

    var invalidIDDetail: String? {
        if case .invalidID(let detail, _) = self { return detail }
        return nil
    }
}

enum ServerAPITestDates {
    static func day(_ offset: Double) -> Date { Date(timeIntervalSinceNow: offset * 86_400) }
}

typealias ScriptedTransaction = ServerAPIScriptTransaction

extension ScriptedServerAPI {
    /// The arrange and act of a statuses test: production answers `status` alone for its transaction's id,
    /// the client asks for it now; the one subscription the client read.
    func onlySubscription(
        _ status: ServerAPIScriptStatus, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ServerAPIStatuses.Subscription {
        script(.production, .subscriptionStatuses, id: status.transaction.id, [.statuses([status])])
        let (lookup, _) = client().statusesNow(of: status.transaction.id)
        return try #require(lookup.found?.value.subscriptions.first, "\(lookup)", sourceLocation: sourceLocation)
    }
}
