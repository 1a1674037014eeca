/// A JSON value as `AppleJSONParser` reads it: just enough structure for the verifyReceipt
/// models to pick their fields, without Foundation's untyped `Any` graph.
///
/// Objects and arrays are views into their `AppleJSONDocument`; a string or number becomes a
/// `String` when the view is asked for it. Numbers stay the text Apple wrote (`1592575024000`,
/// `-1.5e3`): ids beyond `Int64` keep every digit, and each field decides how to read the
/// number (see `AppleJSONScalar`).
enum AppleJSONValue: Equatable, Sendable {
    case object(AppleJSONObject)
    case array(AppleJSONArray)
    case string(String)
    /// A number as written in the document, already checked against RFC 8259's grammar.
    case number(String)
    case bool(Bool)
    case null
}
