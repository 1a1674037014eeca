import Foundation
import Reconciliation
import Testing

/// `RevertRule` (CONTRACT §6, "Undo"): what a revert does with each correction of the run it undoes.
@Suite struct RevertRuleTests {
    static let written = Date(timeIntervalSince1970: 1_800_000_000)
    static let x = Date(timeIntervalSince1970: 1_790_000_000)
    static let y = Date(timeIntervalSince1970: 1_810_000_000)

    static func undone(
        action: CorrectionAction, before: (Bool, Date?)?, after: (Bool, Date?), reason: CorrectionReason = .refund
    ) -> RevertRule.Undone {
        RevertRule.Undone(
            id: 10, runID: 5, userID: "u",
            record: CorrectionRecord(
                entitlement: "pro", action: action, reason: reason, beforeActive: before?.0, beforeExpiresAt: before?.1,
                afterActive: after.0, afterExpiresAt: after.1, productID: nil, originalTransactionID: nil),
            createdAt: written)
    }

    static func row(_ active: Bool, _ expiresAt: Date?, source: String = "app_store", updatedAt: Date = written)
        -> EntitlementRow
    {
        EntitlementRow(entitlement: "pro", active: active, expiresAt: expiresAt, source: source, updatedAt: updatedAt)
    }

    static func restored(_ decision: RevertRule.Decision) -> RevertRule.Step? {
        if case .restore(let step) = decision { return step }
        return nil
    }

    @Test func aRevokeIsUndoneByAGrantOfTheSameExpiry() throws {
        let revoke = Self.undone(action: .revoke, before: (true, Self.y), after: (false, Self.y))
        let step = try #require(
            Self.restored(RevertRule.decide(.init(correction: revoke, current: Self.row(false, Self.y)))))
        #expect(step.action == .grant)
        #expect(
            (step.beforeActive, step.beforeExpiresAt, step.afterActive, step.afterExpiresAt) == (
                false, Self.y, true, Self.y
            ))
        #expect(!step.createdByRun)
    }

    @Test func extendAndShortenSwapAndTheExpiryGoesBackExactly() throws {
        let extend = Self.undone(action: .extend, before: (true, Self.x), after: (true, Self.y), reason: .renewal)
        let undoExtend = try #require(
            Self.restored(RevertRule.decide(.init(correction: extend, current: Self.row(true, Self.y)))))
        #expect(undoExtend.action == .shorten && undoExtend.afterExpiresAt == Self.x)
        let shorten = Self.undone(action: .shorten, before: (true, nil), after: (true, Self.x))
        let undoShorten = try #require(
            Self.restored(RevertRule.decide(.init(correction: shorten, current: Self.row(true, Self.x)))))
        #expect(undoShorten.action == .extend && undoShorten.afterActive && undoShorten.afterExpiresAt == nil)
    }

    @Test func aGrantOfAnInactiveRowPutsItsOldExpiryBack() throws {
        let grant = Self.undone(
            action: .grant, before: (false, Self.x), after: (true, nil), reason: .purchaseNotGranted)
        let step = try #require(
            Self.restored(RevertRule.decide(.init(correction: grant, current: Self.row(true, nil)))))
        #expect(step.action == .revoke && !step.afterActive && step.afterExpiresAt == Self.x)
    }

    @Test func aRowTheRunCreatedIsMadeInactiveAndKeepsItsExpiry() throws {
        let grant = Self.undone(action: .grant, before: nil, after: (true, Self.y), reason: .purchaseNotGranted)
        let step = try #require(
            Self.restored(RevertRule.decide(.init(correction: grant, current: Self.row(true, Self.y)))))
        #expect(step.createdByRun && step.action == .revoke && !step.afterActive && step.afterExpiresAt == Self.y)
    }

    @Test func anEntitlementChangedSinceIsLeftAlone() {
        let revoke = Self.undone(action: .revoke, before: (true, Self.y), after: (false, Self.y))
        let cases: [(EntitlementRow?, [RevertRule.Later], RevertRule.LeftAlone)] = [
            (nil, [], .rowGone),
            (Self.row(false, Self.y, source: "promo"), [], .otherSource("promo")),
            (Self.row(true, Self.y), [], .valuesChanged(active: true, expiresAt: Self.y)),
            (Self.row(false, Self.x), [], .valuesChanged(active: false, expiresAt: Self.x)),
            (
                Self.row(false, Self.y, updatedAt: Self.written.addingTimeInterval(0.000_001 * 2)), [],
                .updatedSince(Self.written.addingTimeInterval(0.000_001 * 2))
            ),
            (
                Self.row(false, Self.y),
                [.init(id: 11, runID: 6, reason: .expired, revertsCorrectionID: nil, createdAt: Self.written)],
                .correctedSince(runID: 6, reason: .expired)
            ),
        ]
        for (row, later, why) in cases {
            #expect(RevertRule.decide(.init(correction: revoke, current: row, later: later)) == .leaveAlone(why))
        }
    }

    /// A later night's correction that a later revert undid leaves the row as this run left it: reverting
    /// the later night first, then this one, restores both.
    @Test func aLaterCorrectionUndoneByALaterRevertCancelsOut() throws {
        let revoke = Self.undone(action: .revoke, before: (true, Self.y), after: (false, Self.y))
        let then = Self.written.addingTimeInterval(3600)
        let later: [RevertRule.Later] = [
            .init(id: 20, runID: 6, reason: .purchaseNotGranted, revertsCorrectionID: nil, createdAt: then),
            .init(id: 30, runID: 7, reason: .reverted, revertsCorrectionID: 20, createdAt: then + 60),
        ]
        let step = try #require(
            Self.restored(
                RevertRule.decide(
                    .init(correction: revoke, current: Self.row(false, Self.y, updatedAt: then + 60), later: later))))
        #expect(step.action == .grant)
        // The same row rewritten after that revert is the app's doing.
        #expect(
            RevertRule.decide(
                .init(correction: revoke, current: Self.row(false, Self.y, updatedAt: then + 61), later: later))
                == .leaveAlone(.updatedSince(then + 61)))
    }

    @Test func aCorrectionRevertedAlreadyIsNotTouchedAgain() {
        let revoke = Self.undone(action: .revoke, before: (true, Self.y), after: (false, Self.y))
        #expect(
            RevertRule.decide(.init(correction: revoke, current: Self.row(true, Self.y), revertedByRunID: 8))
                == .alreadyReverted(byRunID: 8))
    }
}
