import AppStoreReceipts
import AppStoreSimulator
import Foundation
import Synchronization
import TestSupport
import Testing

/// The client against a real loopback HTTP server: routing, retries, timeouts and concurrency as
/// Apple's endpoints would exercise them, through each transport `--http-client` can select.
@Suite struct VerifyReceiptClientLoopbackTests {
    static let receipt = "MIIBcjCCAW4GCSqGSIb3DQEHAqCCAV8wggFbAgEBMQ8wDQYJYIZIAWUDBAIBBQAwggEGBgkqhkiG9w0BBwGggfgEgfUx"

    @Test(arguments: HTTPTransportKind.allCases)
    func sandboxReceiptSentToProductionMovesToSandboxOnce(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [.status(21007)], sandbox: [.status(0)])
        let report = apple.client(transport: transport).verify(receiptData: Self.receipt)
        #expect(report.verdict == .valid)
        #expect(apple.endpoints == ["production", "sandbox"])
        #expect(report.environment == .sandbox)
        #expect(report.hops == 1)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func productionReceiptSentToSandboxMovesToProductionOnce(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [.status(0)], sandbox: [.status(21008)])
        let report = apple.client(transport: transport, environment: .sandbox).verify(receiptData: Self.receipt)
        #expect(report.verdict == .valid)
        #expect(apple.endpoints == ["sandbox", "production"])
        #expect(report.environment == .production)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func aSecondRedirectIsNotFollowed(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [.status(21007)], sandbox: [.status(21008)])
        let report = apple.client(transport: transport).verify(receiptData: Self.receipt)
        #expect(apple.endpoints == ["production", "sandbox"])
        #expect(!report.verdict.isValid)
        if case .unverified = report.verdict {} else { Issue.record("expected unverified, got \(report.verdict)") }
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func temporarilyUnavailableTwiceThenValidTakesThreeRequests(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [.status(21005), .status(21005), .status(0)])
        let report = apple.client(transport: transport).verify(receiptData: Self.receipt)
        #expect(report.verdict == .valid)
        #expect(apple.endpoints == ["production", "production", "production"])
        #expect(report.requests == 3)
        #expect(report.retries == 2)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func serviceUnavailableWithRetryAfterWaitsAtLeastThatLong(_ transport: HTTPTransportKind) throws {
        let page = "<html><head><title>503 Service Unavailable</title></head><body>down</body></html>"
        let apple = try ScriptedAppleServer(production: [
            .http(503, body: page, headers: [("Retry-After", "1")]), .status(0),
        ])
        let started = Date()
        let report = apple.client(transport: transport).verify(receiptData: Self.receipt)
        #expect(Date().timeIntervalSince(started) >= 1.0)
        #expect(report.verdict == .valid)
        #expect(report.requests == 2)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func htmlErrorPagesEndUnverifiedWithAReadableDetail(_ transport: HTTPTransportKind) throws {
        let page = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
        let apple = try ScriptedAppleServer(production: [.http(502, body: page)])
        let report = apple.client(transport: transport, sharedSecret: "s3cr3t-shared", maxAttempts: 3)
            .verify(receiptData: Self.receipt)
        #expect(apple.endpoints.count == 3)
        if case .unverified = report.verdict {} else { Issue.record("expected unverified, got \(report.verdict)") }
        #expect(report.detail.contains("HTTP 502"))
        #expect(report.detail.contains("<html><head><title>502 Bad Gateway"))
        #expect(!report.detail.contains(Self.receipt.prefix(20)))
        #expect(!report.detail.contains("s3cr3t-shared"))
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func aTruncatedJSONBodyIsTransientNotInvalid(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [
            .http(200, body: #"{"status":0,"receipt":{"bundle_id""#), .status(0),
        ])
        let report = apple.client(transport: transport).verify(receiptData: Self.receipt)
        #expect(report.verdict == .valid)
        #expect(report.requests == 2)
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func aServerThatNeverAnswersFailsWithinTheTimeout(_ transport: HTTPTransportKind) throws {
        // The server never answers: only the timeout can end each attempt, so a verdict of two timed-out
        // attempts is the proof (a load that slows the machine cannot make it fail).
        let apple = try ScriptedAppleServer(production: [.silence])
        let started = ContinuousClock.now
        let report = apple.client(transport: transport, timeout: .seconds(1), maxAttempts: 2).verify(
            receiptData: Self.receipt)
        #expect(report.requests == 2)
        #expect(apple.endpoints == ["production", "production"])
        #expect(report.verdict == .unverified(.retriesExhausted(.transport(.timedOut))))
        #expect(ContinuousClock.now - started >= .seconds(2), "an attempt gave up before its timeout")
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func wrongSharedSecretIsAConfigurationErrorAfterOneRequest(_ transport: HTTPTransportKind) throws {
        let apple = try ScriptedAppleServer(production: [.status(21004, extra: #","environment":"Production""#)])
        let report = apple.client(transport: transport, sharedSecret: "wrong").verify(receiptData: Self.receipt)
        #expect(apple.endpoints == ["production"])
        if case .configurationError = report.verdict {
        } else {
            Issue.record("expected a configuration error, got \(report.verdict)")
        }
        // The secret went to Apple in the body, and nowhere else.
        #expect(apple.received.first?.body.contains(#""password":"wrong""#) == true)
        #expect(!report.detail.contains("wrong\""))
    }

    @Test(arguments: HTTPTransportKind.allCases)
    func sixtyFourRequestsAreReallyInFlightAtOnce(_ transport: HTTPTransportKind) throws {
        // Every answer waits until all 64 requests are held at the server together: only a client that
        // really keeps 64 in flight gets them answered in time. One attempt each, so no retry can count.
        let apple = try ScriptedAppleServer(production: [.together(64, .status(0))])
        let client = apple.client(transport: transport, timeout: .seconds(60), maxAttempts: 1, concurrency: 64)
        let valid = Atomic(0)
        let done = DispatchGroup()
        for _ in 0..<64 {
            done.enter()
            // Each lane is its own thread, as in the job: blocking here never starves the global queue.
            Thread.detachNewThread {
                if client.verify(receiptData: Self.receipt).verdict == .valid { valid.add(1, ordering: .relaxed) }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 120) == .success)
        #expect(valid.load(ordering: .relaxed) == 64)
        // The server held all 64 at the same time: not six (URLSession's default cap), not one per core.
        #expect(apple.gateFilled)
        #expect(apple.server.stats.peakRequestsInFlight == 64)
    }
}

extension VerificationVerdict {
    var isValid: Bool { self == .valid }
}
