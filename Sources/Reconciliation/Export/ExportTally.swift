/// What an export wrote: its data rows and, for corrections and flags, the runs they came from, so the
/// manifest can say which runs finance's file holds and whether any was a dry run.
public struct ExportTally: Sendable, Equatable {
    public struct Run: Sendable, Equatable {
        public let id: Int64
        public let dryRun: Bool
        public var rows: Int

        public init(id: Int64, dryRun: Bool, rows: Int) {
            self.id = id
            self.dryRun = dryRun
            self.rows = rows
        }
    }

    public var rows = 0
    /// In order of run id; empty for transactions.
    public private(set) var runs: [Run] = []

    public init() {}

    /// One more row, of run `id`.
    mutating func count(run id: Int64, dryRun: Bool) {
        rows += 1
        if let index = runs.firstIndex(where: { $0.id == id }) {
            runs[index].rows += 1
        } else {
            runs.append(Run(id: id, dryRun: dryRun, rows: 1))
            runs.sort { $0.id < $1.id }
        }
    }

    /// Adds `run` with no rows, when it is not there yet (a run asked for by id that wrote none in range).
    mutating func include(_ run: Run) {
        guard !runs.contains(where: { $0.id == run.id }) else { return }
        runs.append(Run(id: run.id, dryRun: run.dryRun, rows: 0))
        runs.sort { $0.id < $1.id }
    }
}
