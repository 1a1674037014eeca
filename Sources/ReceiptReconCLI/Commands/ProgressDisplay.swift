import Foundation
import Reconciliation

/// Where a nightly run shows how far it has got. On a terminal (and without `--json`), one line on
/// stderr redrawn every second. Anywhere else (cron, systemd, Kubernetes, or `--json`, whose stdout holds
/// only the summary) an `event=run.progress` log line on stderr every `RECON_PROGRESS_INTERVAL` seconds,
/// 30 by default: what the operator reads in the journal or the wrapper's log while the run is going.
struct ProgressDisplay: Sendable {
    enum Mode: Sendable {
        case terminalLine
        case logEvents
    }

    let mode: Mode
    /// Seconds between two lines.
    let interval: Double

    static let variable = OutputSettings.progressInterval.variable!.name

    init(terminal: Bool, json: Bool, logInterval: Double) {
        (mode, interval) = terminal && !json ? (.terminalLine, 1) : (.logEvents, logInterval)
    }

    /// The seconds between two `run.progress` lines: `RECON_PROGRESS_INTERVAL`, or 30.
    /// - Throws: a configuration error (78) for a value that is not a number of seconds from 0.1 to
    ///   86400, like the other `RECON_*` settings.
    static func logInterval(_ settings: SettingResolver) throws(CommandError) -> Double {
        try settings.value(OutputSettings.progressInterval)
    }

    func show(_ progress: RunProgress, console: Console, log: EventLog) {
        switch mode {
        case .terminalLine: console.errorWrite("\r\u{1B}[K" + progress.text)
        case .logEvents: log.log(.info, "run.progress", fields: progress.logFields)
        }
    }

    /// Clears the terminal's line before the summary is printed.
    func finish(console: Console) {
        if mode == .terminalLine { console.errorWrite("\r\u{1B}[K") }
    }
}
