import CommandLineOptions

/// What the run shows and leaves behind: the JSON summary, the metrics file, the progress lines.
enum OutputSettings {
    static let json = Setting(
        option: OptionSpec(
            "json", .flag,
            "print the summary as one JSON object on stdout; on failure too, with status, exitCode and reason"),
        default: false, parse: { _, _ in true })

    static let metricsFile = Setting<String?>(
        option: OptionSpec(
            "metrics-file", .value(placeholder: "PATH"),
            "write Prometheus text-format metrics for node_exporter's textfile collector (atomically) at every end "
                + "of the run once its options were understood, a run that never started included; the last success "
                + "is carried forward, a dry run's series kept apart"),
        default: nil,
        parse: { parse, text throws(OptionError) in
            guard !text.isEmpty else { throw OptionError("--metrics-file needs a path", invocation: parse.invocation) }
            return text
        })

    /// Seconds between two `run.progress` log lines (`ProgressDisplay`); fractions of a second are for
    /// tests, and a day is the most that still says anything.
    static let progressInterval = Setting(
        option: nil,
        variable: SettingVariable(
            "RECON_PROGRESS_INTERVAL",
            "seconds between two event=run.progress log lines when stderr is not a terminal or with --json; "
                + "default: 30",
            refusal: .mustBe("a number of seconds from 0.1 to 86400")),
        default: 30.0, documented: "30",
        parse: { parse, text throws(OptionError) in
            guard let seconds = Double(text), (0.1...86_400.0).contains(seconds) else {
                throw parse.fail("progress-interval", "a number of seconds from 0.1 to 86400", text)
            }
            return seconds
        })
}
