import AppStoreReceipts
import Foundation
import Testing

@testable import AppStoreSimulator

/// The world's receipts are real-format receipts that the project's decoder reads as they were
/// meant, and the simulator finds its record for every one of them from the bytes alone.
@Suite struct WorldReceiptTests {
    static let units: [WorldUnit] = {
        var units: [WorldUnit] = []
        TestWorlds.small.forEachUnit { units.append($0) }
        return units
    }()

    @Test func theFastDERWriterWritesTheSameBytesAsTheReceiptEncoder() {
        var compared = 0
        for unit in Self.units {
            for slot in unit.receipts.indices {
                guard case .app(let account, let created) = unit.receipts[slot] else { continue }
                let receipt = unit.appReceipt(
                    account: account, createdMs: created, tag: .init(kind: .stored, unit: unit.index, slot: slot))
                #expect(AppReceiptDER.encode(receipt) == LocalReceiptEncoder.appReceipt(receipt))
                let latest = unit.appReceipt(
                    account: account, createdMs: unit.asOfMs, tag: .init(kind: .latest, unit: unit.index, slot: account)
                )
                #expect(AppReceiptDER.encode(latest) == LocalReceiptEncoder.appReceipt(latest))
                compared += 2
            }
        }
        #expect(compared > 300)
    }

    @Test func everyReceiptDecodesLocallyAsWhatItIs() throws {
        for unit in Self.units {
            for slot in unit.receipts.indices {
                let data = unit.receiptData(slot)
                switch unit.receipts[slot] {
                case .app(let account, let created), .tamperedApp(let account, let created):
                    let local = try LocalReceiptDecoder.decode(base64: data)
                    let owner = unit.accounts[account]
                    #expect(local.format == .appReceipt)
                    #expect(local.bundleID == owner.bundleID)
                    #expect(local.environmentKind == (owner.environment == .sandbox ? .sandbox : .production))
                    #expect(local.creationDate == WorldUnit.date(created))
                    let expected = owner.transactions(purchasedBy: created).count
                    if case .tamperedApp = unit.receipts[slot] {
                        #expect(local.inApp.count == expected + 1, "the forged purchase is in the receipt")
                    } else {
                        #expect(local.inApp.count == expected)
                    }
                case .transaction(let account, let id):
                    let local = try LocalReceiptDecoder.decode(base64: data)
                    #expect(local.format == .transactionReceipt)
                    #expect(local.inApp.first?.transactionID == id)
                    #expect(local.bundleID == unit.accounts[account].bundleID)
                case .craftedTransaction(let account, _):
                    let local = try LocalReceiptDecoder.decode(base64: data)
                    #expect(local.format == .transactionReceipt)
                    #expect(local.inApp.first?.transactionID == unit.craftedTransactionID(account: account))
                case .xcode:
                    let local = try LocalReceiptDecoder.decode(base64: data)
                    #expect(local.isXcodeTestReceipt)
                case .garbage:
                    #expect(throws: ReceiptDecodingError.self) { try LocalReceiptDecoder.decode(base64: data) }
                    do { _ = try LocalReceiptDecoder.decode(base64: data) } catch { #expect(!error.isEmptyOrNotBase64) }
                case .empty, .notBase64:
                    do {
                        _ = try LocalReceiptDecoder.decode(base64: data)
                        Issue.record("\(unit.receipts[slot]) decoded")
                    } catch {
                        #expect(error.isEmptyOrNotBase64)
                    }
                case .signedTransaction:
                    Issue.record("a world without StoreKit 2 users holds a signed row")
                }
            }
        }
    }

    @Test func theLocatorFindsEveryReceiptFromItsBytes() {
        let locator = WorldReceiptLocator(world: TestWorlds.small)
        var kinds = Set<String>()
        for unit in Self.units {
            for slot in unit.receipts.indices {
                #expect(
                    locator.identify(unit.receiptData(slot)) == unit.identity(ofSlot: slot), "\(unit.receipts[slot])")
                kinds.insert(String(describing: unit.receipts[slot]).prefix { $0 != "(" }.description)
            }
        }
        #expect(kinds.isSuperset(of: ["app", "tamperedApp", "transaction", "xcode", "garbage", "empty", "notBase64"]))
    }

    @Test func latestReceiptsAreFoundToo() {
        let locator = WorldReceiptLocator(world: TestWorlds.small)
        let unit = Self.units[0]
        for account in unit.accounts.indices {
            #expect(
                locator.identify(unit.latestReceiptData(account: account))
                    == .app(unit: unit.index, account: account, createdMs: unit.asOfMs))
        }
    }

    @Test func whitespaceInStoredReceiptDataIsIgnoredAsByTheDecoder() throws {
        let locator = WorldReceiptLocator(world: TestWorlds.small)
        let unit = Self.units[0]
        let data = unit.receiptData(0)
        var wrapped = ""
        for (index, character) in data.enumerated() {
            if index > 0, index % 76 == 0 { wrapped += "\r\n" }
            wrapped.append(character)
        }
        #expect(locator.identify(wrapped) == unit.identity(ofSlot: 0))
    }

    @Test func receiptsOfAnotherWorldAreNotAuthenticated() {
        let other = SimulatedWorld(users: 200, seed: 8, asOf: testAsOf)
        let later = SimulatedWorld(users: 200, seed: 7, asOf: testAsOf.addingTimeInterval(86_400))
        let locator = WorldReceiptLocator(world: TestWorlds.small)
        for world in [other, later] {
            let unit = world.unit(0)
            #expect(locator.identify(unit.receiptData(0)) == .unauthenticated)
        }
    }

    @Test func aReceiptWithOneByteChangedIsNotAuthenticated() throws {
        let locator = WorldReceiptLocator(world: TestWorlds.small)
        let unit = Self.units[0]
        var bytes = try #require(unit.receiptBytes(0))
        // Change a digit of the creation date near the end of the payload (still a valid receipt).
        let index = try #require(bytes.lastIndex(of: UInt8(ascii: "Z"))) - 1
        bytes[index] = bytes[index] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let data = Data(bytes).base64EncodedString()
        #expect((try? LocalReceiptDecoder.decode(base64: data)) != nil)
        #expect(locator.identify(data) == .unauthenticated)
    }

    @Test func hostileBytesNeverCrashTheOpaqueReader() {
        var rng = SplitMix64(seed: 11)
        let genuine = Self.units[0].receiptBytes(0)!
        for round in 0..<2_000 {
            var bytes = round % 2 == 0 ? rng.bytes(rng.int(in: 0...300)) : genuine
            if round % 2 == 1 {
                for _ in 0..<rng.int(in: 1...8) {
                    bytes[rng.int(in: 0...(bytes.count - 1))] = UInt8(truncatingIfNeeded: rng.next())
                }
                bytes = Array(bytes.prefix(rng.int(in: 0...bytes.count)))
            }
            _ = AppReceiptDER.opaqueValue(in: bytes)
        }
    }

    @Test func pacificTimeMatchesFoundationsTimeZone() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        var rng = SplitMix64(seed: 3)
        for _ in 0..<3_000 {
            // 2008 to 2035, around the DST edges too.
            let seconds = rng.int64(in: 1_199_145_600...2_082_758_400)
            let expected = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
            #expect(AppleDateText.pacificOffset(milliseconds: seconds * 1000) == expected, "at \(seconds)")
        }
        // The hour either side of 2026's changes.
        for seconds: Int64 in [1_772_963_999, 1_772_964_000, 1_793_523_599, 1_793_523_600] {
            let expected = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
            #expect(AppleDateText.pacificOffset(milliseconds: seconds * 1000) == expected, "at \(seconds)")
        }
        #expect(AppleDateText.gmt(1_636_808_866_000) == "2021-11-13 13:07:46 Etc/GMT")
        #expect(AppleDateText.pacific(1_636_808_866_000) == "2021-11-13 05:07:46 America/Los_Angeles")
    }
}
