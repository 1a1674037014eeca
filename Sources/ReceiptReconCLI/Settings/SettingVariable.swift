/// A setting's environment variable: its name, its line in the help's CONFIGURATION section, and how
/// a value it cannot take is refused.
struct SettingVariable: Sendable {
    /// How a bad value is told: each variable's sentence as operators and tests know it.
    enum Refusal: Sendable {
        /// `NAME must be <expected>, not '<text>'`.
        case mustBe(String)
        /// `NAME is not an http:// or https:// URL: '<text>'`.
        case notURL
        /// Any text is taken as it is (its reader never refuses one).
        case never
    }

    let name: String
    /// The help's line for it, which names its flag.
    let meaning: String
    let refusal: Refusal

    init(_ name: String, _ meaning: String, refusal: Refusal = .never) {
        self.name = name
        self.meaning = meaning
        self.refusal = refusal
    }

    /// The configuration error (78) for `text`, which the setting could not read.
    func refused(_ text: String) -> CommandError {
        switch refusal {
        case .mustBe(let expected): .configuration("\(name) must be \(expected), not '\(text)'")
        case .notURL: .configuration("\(name) is not an http:// or https:// URL: '\(text)'")
        case .never: .configuration("\(name) cannot be '\(text)'")
        }
    }
}
