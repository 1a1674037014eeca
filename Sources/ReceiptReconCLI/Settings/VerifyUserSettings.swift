import CommandLineOptions

/// The options of `verify-user` beside the run's settings: the explanation, and the order id.
enum VerifyUserSettings {
    static let explain = Setting(flag: OptionSpec("explain", .flag, UserExplanation.help))

    /// Letters and digits, checked by `VerifyUserCommand.orderID`.
    static let orderID = Setting(
        text: OptionSpec(
            "order-id", .value(placeholder: "ID"),
            "the order id from the customer's App Store receipt email (e.g. MK5TTTVWJH): verify the users holding "
                + "its transactions (needs the App Store Server API key)"))

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [explain, orderID]
}
