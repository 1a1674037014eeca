import Foundation

extension RunOptions {
    /// `rate` as the log prints it: `20`, `6.667`.
    public var rateText: String { Self.rateText(rate) }

    /// A rate with at most three decimals and no trailing zeros.
    public static func rateText(_ rate: Double) -> String {
        var text = String(format: "%.3f", rate)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
