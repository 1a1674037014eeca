import AppStoreReceipts
import Foundation
import TestSupport

@testable import AppStoreSimulator

/// Starts a simulator on an ephemeral loopback port for `body` and stops it afterwards, also on failure.
func withSimulator<T: Sendable>(
    _ world: SimulatedWorld,
    options: SimulatorOptions = SimulatorOptions(),
    _ body: (AppStoreSimulator) async throws -> T
) async throws -> T {
    try await running(AppStoreSimulator(world: world, options: options), body)
}

/// Starts `simulator` for `body` and stops it afterwards, also on failure.
func running<T: Sendable>(
    _ simulator: AppStoreSimulator, _ body: (AppStoreSimulator) async throws -> T
) async throws -> T {
    try simulator.start()
    do {
        let result = try await body(simulator)
        try await TestThreads.run { simulator.stop() }
        return result
    } catch {
        try? await TestThreads.run { simulator.stop() }
        throw error
    }
}

extension AppStoreSimulator {
    /// The project's verifyReceipt client and driver pointed at this simulator, with fast backoff.
    func client(
        transport: HTTPTransportKind = .curl,
        environment: AppStoreEnvironment = .production,
        sharedSecret: String? = nil,
        timeout: Duration = .seconds(5),
        maxAttempts: Int = 4,
        concurrency: Int = 8,
        rate: Double = 10_000,
        burst: Double? = nil
    ) -> VerifyReceiptRig {
        VerifyReceiptRig(
            productionURL: productionURL, sandboxURL: sandboxURL, transport: transport, environment: environment,
            sharedSecret: sharedSecret, timeout: timeout, maxAttempts: maxAttempts, concurrency: concurrency,
            rate: rate, burst: burst ?? rate,
            backoff: BackoffPolicy(base: .milliseconds(5), cap: .milliseconds(20), seed: 7))
    }

    /// The JSON body of a verifyReceipt request, as the project's client writes it.
    static func requestBody(_ receiptData: String, password: String? = nil, excludeOld: Bool = true) throws -> [UInt8] {
        Array(
            try VerifyReceiptRequest(receiptData: receiptData, password: password, excludeOldTransactions: excludeOld)
                .jsonBody())
    }
}
