import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// A world seeded with a `--pki-dir` chain has its app receipts signed by that chain, as Apple signs
/// every app receipt: they verify to the chain's root at their creation date, a forged one does not,
/// and the simulator still recognises every one of them when it is sent to verifyReceipt.
@Suite struct SignedAppReceiptTests {
    /// Valid far around the world's dates, as `SeedSigningChain` mints it.
    static let chain = try! SigningChain.mint(
        notBefore: testAsOf.addingTimeInterval(-SeedSigningChain.margin),
        notAfter: testAsOf.addingTimeInterval(SeedSigningChain.margin))
    static let units: [WorldUnit] = {
        var units: [WorldUnit] = []
        TestWorlds.small.forEachUnit { units.append($0) }
        return units
    }()

    @Test func appReceiptsAreSignedByTheChainAndForgeriesFail() throws {
        let verifier = ReceiptSignatureVerifier(roots: [Self.chain.root])
        var checked = Set<String>()
        for unit in Self.units {
            for slot in unit.receipts.indices {
                let data = unit.receiptData(slot, signingChain: Self.chain)
                let check = verifier.verify(base64: data)
                switch unit.receipts[slot] {
                case .app(_, let created):
                    #expect(check.result == .verified, "\(unit.receipts[slot])")
                    #expect(check.checkedAt == WorldUnit.date(created))
                    // The content is the receipt the unsigned world holds.
                    #expect(
                        try LocalReceiptDecoder.decode(base64: data)
                            == LocalReceiptDecoder.decode(base64: unit.receiptData(slot)).withContainerSize(of: data))
                    checked.insert("app")
                case .tamperedApp:
                    #expect(check.failure == "the signature does not match the receipt content")
                    checked.insert("tamperedApp")
                case .transaction:
                    #expect(check.result == .notApplicable)
                    #expect(data == unit.receiptData(slot), "iOS 6 receipts are not PKCS#7: unchanged")
                    checked.insert("transaction")
                case .xcode:
                    // Xcode's receipts are signed by a local StoreKit certificate, never by the App Store.
                    #expect(data == unit.receiptData(slot))
                    #expect(!check.isVerified)
                default:
                    continue
                }
            }
        }
        #expect(checked == ["app", "tamperedApp", "transaction"])
    }

    @Test func theLocatorRecognisesSignedReceiptsAndNothingAltered() throws {
        let signed = WorldReceiptLocator(world: TestWorlds.small, signingChain: Self.chain)
        let unsigned = WorldReceiptLocator(world: TestWorlds.small)
        for unit in Self.units {
            for slot in unit.receipts.indices {
                let data = unit.receiptData(slot, signingChain: Self.chain)
                #expect(signed.identify(data) == unit.identity(ofSlot: slot), "\(unit.receipts[slot])")
                // The unsigned receipts of a world seeded without a chain are still recognised.
                #expect(signed.identify(unit.receiptData(slot)) == unit.identity(ofSlot: slot))
                if case .app = unit.receipts[slot] {
                    // Without the chain, a signed receipt is not one this App Store issued.
                    #expect(unsigned.identify(data) == .unauthenticated)
                }
            }
        }
        // An altered signature is not recognised, as Apple's check would refuse it.
        let unit = Self.units[0]
        let slot = try #require(
            unit.receipts.indices.first { if case .app = unit.receipts[$0] { true } else { false } })
        var bytes = try #require(unit.receiptBytes(slot, signer: WorldUnit.receiptSigner(Self.chain)))
        bytes[bytes.count - 5] ^= 0x01
        #expect(signed.identify(Data(bytes).base64EncodedString()) == .unauthenticated)
    }

    /// `simulator serve --pki-dir` hands its chain to the locator.
    @Test func theSimulatorsLocatorUsesItsChain() throws {
        let simulator = AppStoreSimulator(
            world: TestWorlds.small, serverAPI: ServerAPISetup(chain: Self.chain, key: try ServerAPIKey.generate()))
        let unit = Self.units[0]
        let slot = try #require(
            unit.receipts.indices.first { if case .app = unit.receipts[$0] { true } else { false } })
        #expect(
            simulator.locator.identify(unit.receiptData(slot, signingChain: Self.chain)) == unit.identity(ofSlot: slot))
    }
}

extension LocalReceipt {
    /// The receipt with the container size of `base64`'s receipt: signing changes only the container.
    fileprivate func withContainerSize(of base64: String) throws -> LocalReceipt {
        var copy = self
        copy.containerByteCount = try LocalReceiptDecoder.decode(base64: base64).containerByteCount
        return copy
    }
}
