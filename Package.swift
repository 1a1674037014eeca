// swift-tools-version: 6.2
import PackageDescription

// Swift 6 language mode (strict concurrency) for every target, plus the upcoming features that
// keep existential and import use explicit.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "receipt-recon",
    products: [
        .executable(name: "receipt-recon", targets: ["receipt-recon"]),
        .executable(name: "receipt-recon-bench", targets: ["receipt-recon-bench"]),
    ],
    targets: [
        // libpq through Debian's libpq-dev.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // libcurl through Debian's libcurl4-openssl-dev: the verifyReceipt transport (URLSession on
        // Linux costs about ten times the CPU per request).
        .systemLibrary(
            name: "CLibCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // OpenSSL's libcrypto through Debian's libssl-dev: X.509 chains and ES256 for Apple's signed data.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // UTC civil dates and times, Unix time and calendar durations: the one calendar every module uses.
        .target(name: "CivilTime", swiftSettings: strict),
        // Running other programs (initdb, pg_ctl, the built binary) without Foundation.Process, and
        // measuring a child's own peak memory (the bench, the tests' memory bounds).
        .target(name: "ChildProcess", swiftSettings: strict),
        // The only module that imports CLibPQ.
        .target(name: "Postgres", dependencies: ["CLibPQ", "ChildProcess", "CivilTime"], swiftSettings: strict),

        // SQL/NNNN_*.sql embedded into the binary at build time, and the migrator that applies them.
        .executableTarget(name: "embed-migrations", swiftSettings: strict),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["embed-migrations"]),
        .target(
            name: "ReconSchema",
            dependencies: ["Postgres"],
            swiftSettings: strict,
            plugins: ["EmbedMigrations"]
        ),

        // Apple's side: wire models, status classification, client, throttle, local receipt decoding,
        // signed data (JWS) verification. No database dependency.
        .target(
            name: "AppStoreReceipts", dependencies: ["CLibCurl", "CLibCrypto", "CivilTime"], swiftSettings: strict
        ),
        // A local verifyReceipt (production + sandbox) over a synthetic world.
        .target(
            name: "AppStoreSimulator",
            dependencies: ["AppStoreReceipts", "Postgres", "CivilTime"],
            swiftSettings: strict
        ),
        // The job: runs, truth and correction rules, stores, reports.
        .target(
            name: "Reconciliation",
            dependencies: ["Postgres", "ReconSchema", "AppStoreReceipts", "CivilTime", "CLibCrypto"],
            swiftSettings: strict
        ),
        // Option specs, parsing, value parsers and help layout, shared by `receipt-recon` and the bench.
        .target(name: "CommandLineOptions", swiftSettings: strict),
        // Configuration, commands and their options; everything the executable does, testable in-process.
        .target(
            name: "ReceiptReconCLI",
            dependencies: [
                "Postgres", "ReconSchema", "AppStoreReceipts", "AppStoreSimulator", "Reconciliation", "CivilTime",
                "CommandLineOptions",
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "receipt-recon", dependencies: ["ReceiptReconCLI"], swiftSettings: strict),
        // Measures the job end to end: runs `receipt-recon` (seed, serve, run) as separate processes
        // against a throwaway cluster. Depending on `receipt-recon` only makes SwiftPM build it alongside.
        .executableTarget(
            name: "receipt-recon-bench",
            dependencies: [
                "receipt-recon", "Postgres", "ChildProcess", "CommandLineOptions", "CivilTime", "AppStoreReceipts",
            ],
            swiftSettings: strict
        ),

        // Test-only: throwaway PostgreSQL databases, a scripted loopback Apple and an in-process scripted
        // backend for the engine, running the built binary.
        .target(
            name: "TestSupport",
            dependencies: [
                "Postgres", "ReconSchema", "ChildProcess", "AppStoreReceipts", "AppStoreSimulator", "Reconciliation",
            ],
            swiftSettings: strict
        ),

        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"], swiftSettings: strict),
        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime"], swiftSettings: strict),
        .testTarget(
            name: "PostgresTests",
            dependencies: ["Postgres", "TestSupport", "CivilTime"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppStoreReceiptsTests",
            // The client is tested against the simulator's server; ChildProcess runs `openssl s_server`.
            dependencies: ["AppStoreReceipts", "AppStoreSimulator", "TestSupport", "ChildProcess"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppStoreSimulatorTests",
            dependencies: ["AppStoreSimulator", "AppStoreReceipts", "Postgres", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ReconciliationTests",
            dependencies: ["Reconciliation", "AppStoreReceipts", "Postgres", "TestSupport", "CivilTime"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ReceiptReconCLITests",
            dependencies: [
                "receipt-recon", "receipt-recon-bench", "ReceiptReconCLI", "ReconSchema", "Reconciliation", "Postgres",
                "TestSupport", "AppStoreSimulator",
            ],
            // The golden records are read from the source tree at run time (#filePath), not bundled.
            exclude: ["Golden/commands.txt", "Golden/compare.sh", "Golden/expected"],
            swiftSettings: strict
        ),
    ]
)
