import Foundation
import ReceiptReconCLI

#if canImport(Glibc)
    import Glibc

    // Two malloc arenas rather than glibc's eight per core, before any thread starts: a night's threads
    // mostly wait on Apple and the database, and memory one thread freed in its own arena cannot serve
    // another's, so every arena grows to its own high-water mark (peak RSS: docs/benchmarks.md, "A
    // night at scale"). An operator's own MALLOC_ARENA_MAX or GLIBC_TUNABLES is left to decide.
    // `mallopt` is looked up because Swift's Glibc module does not import <malloc.h>.
    let environment = ProcessInfo.processInfo.environment
    if environment["MALLOC_ARENA_MAX"] == nil, environment["GLIBC_TUNABLES"] == nil,
        let mallopt = dlsym(nil, "mallopt")
    {
        let arenaMax: Int32 = -8  // M_ARENA_MAX
        _ = unsafeBitCast(mallopt, to: (@convention(c) (Int32, Int32) -> Int32).self)(arenaMax, 2)
    }
#endif

exit(
    ReceiptRecon.main(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
