/// The two layouts Apple's date texts, app receipts and the job's printed instants share: their
/// digits are written here, while the zone suffixes (`Etc/GMT`, `America/Los_Angeles`) and the
/// readers stay with the formats that need them.
extension CivilDateTime {
    /// Appends `YYYY-MM-DD`, the separator, then `HH:MM:SS`, in ASCII.
    ///
    /// Years 0 through 9999 take four digits. Others have no four-digit form: they are written in
    /// full, with a minus sign before year 0, so that they at least read back as what they are.
    public func appendText(separator: Unicode.Scalar, to bytes: inout [UInt8]) {
        if (0...9999).contains(date.year) {
            Self.appendDigits(date.year, width: 4, to: &bytes)
        } else {
            if date.year < 0 { bytes.append(UInt8(ascii: "-")) }
            Self.appendDigits(Int64(date.year.magnitude), width: 4, to: &bytes)
        }
        bytes.append(UInt8(ascii: "-"))
        Self.appendDigits(date.month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.appendDigits(date.day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: separator))
        Self.appendDigits(hour, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.appendDigits(minute, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.appendDigits(second, width: 2, to: &bytes)
    }

    /// `YYYY-MM-DD`, the separator, then `HH:MM:SS`.
    public func text(separator: Unicode.Scalar) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(19)
        appendText(separator: separator, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `YYYY-MM-DDTHH:MM:SSZ`, with `.SSS` before the `Z` only when the millisecond is not
    /// zero (microseconds are dropped): RFC 3339 in UTC, the form of app receipt dates and of the
    /// instants the job prints.
    public func appendISO8601(to bytes: inout [UInt8]) {
        appendText(separator: "T", to: &bytes)
        if millisecond != 0 {
            bytes.append(UInt8(ascii: "."))
            Self.appendDigits(millisecond, width: 3, to: &bytes)
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.SSSZ`; see `appendISO8601(to:)`.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Zero-padded to `width`, longer when the value needs more digits. Written digit by digit
    /// into `bytes`, without an intermediate string: the simulator formats dozens of dates an answer.
    private static func appendDigits(_ value: Int64, width: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        var count = 1
        while count < width || value / divisor >= 10 {
            divisor *= 10
            count += 1
        }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
    }
}
