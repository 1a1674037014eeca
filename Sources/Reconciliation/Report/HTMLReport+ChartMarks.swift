import Foundation

/// The chart's marks for runs that are no real night: a dry run changed nothing, and a run that a
/// breaker, an error or a signal stopped did not go through its users, so neither says how the nights
/// go. They stay in the chart (an operator looks for them), shaded with a label under their id, and the
/// trend line of verified receipts joins real nights only, so one failed night does not look like a
/// collapse.
extension HTMLReport {
    /// Why `run` is no real night: `dry run`, or its status when it stopped before going through its
    /// users (`aborted`, `failed`, `interrupted`, `running`); nil for a night that ran to the end
    /// (`completed`, or `partial`: some receipts stayed unverified, a normal night).
    static func chartMark(_ run: RunSummary) -> String? {
        if run.dryRun { return "dry run" }
        switch run.status {
        case .completed, .partial: return nil
        case .running, .aborted, .failed, .interrupted: return run.status.rawValue
        }
    }

    static let markColor = "#b7791f"

    /// A shaded band behind each marked run's bars, across both panels.
    static func markBands(_ marks: [String?], top: Double, bottom: Double, left: Double, slot: Double) -> String {
        marks.enumerated().compactMap { index, mark in
            guard mark != nil else { return nil }
            return "<rect x=\"\(f(left + slot * Double(index)))\" y=\"\(f(top))\" width=\"\(f(slot))\" "
                + "height=\"\(f(bottom - top))\" fill=\"#f1e4c8\" class=\"mark-band\"/>"
        }.joined()
    }

    /// Under each marked run's id: `dry`, or its status.
    static func markLabels(_ marks: [String?], y: Double, left: Double, slot: Double) -> String {
        marks.enumerated().compactMap { index, mark in
            guard let mark else { return nil }
            return "<text x=\"\(f(left + slot * (Double(index) + 0.5)))\" y=\"\(f(y))\" font-size=\"10\" "
                + "text-anchor=\"middle\" fill=\"\(markColor)\" class=\"mark-label\">"
                + "\(escape(mark == "dry run" ? "dry" : mark))</text>"
        }.joined()
    }

    /// A line through the value of every real night, skipping the marked runs; nothing for fewer than two.
    static func trendLine(
        _ runs: [RunSummary], _ marks: [String?], value: (RunSummary) -> Int, left: Double, slot: Double,
        y: (Int) -> Double
    ) -> String {
        let points = runs.indices.filter { marks[$0] == nil }.map { index in
            "\(f(left + slot * (Double(index) + 0.5))),\(f(y(value(runs[index]))))"
        }
        guard points.count > 1 else { return "" }
        return "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#1d2330\" "
            + "stroke-width=\"1.5\" class=\"trend\"><title>trend of verified receipts: real nights only "
            + "(dry and failed runs left out)</title></polyline>"
    }

    /// The legend's entries for the trend and the marks, from `x` on.
    static func markLegend(x: Double, marked: Bool, trend: Bool) -> String {
        var svg = ""
        var x = x
        if trend {
            svg +=
                "<line x1=\"\(f(x))\" y1=\"18\" x2=\"\(f(x + 14))\" y2=\"18\" stroke=\"#1d2330\" stroke-width=\"1.5\"/>"
            svg += "<text x=\"\(f(x + 19))\" y=\"22\" font-size=\"12\" fill=\"#1d2330\">Trend (real nights)</text>"
            x += 150
        }
        if marked {
            // A band swatch without a title: the chart's tooltips are the bars'.
            svg += "<path d=\"M\(f(x)) 12h12v12h-12z\" fill=\"#f1e4c8\" stroke=\"\(markColor)\"/>"
            svg +=
                "<text x=\"\(f(x + 17))\" y=\"22\" font-size=\"12\" fill=\"#1d2330\">"
                + "Dry or failed run: not a night, not in the trend</text>"
        }
        return svg
    }
}
