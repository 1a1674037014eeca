import Glibc
import Synchronization

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for the `Date` header, formatted once per second.
///
/// Threading: safe from any thread; the cache is a `Mutex` held only to compare and swap the string.
final class HTTPDate: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))

    func now() -> String {
        let second = time(nil)
        if let hit = cache.withLock({ $0.second == second ? $0.text : nil }) { return hit }
        let text = Self.format(second)
        cache.withLock { $0 = (second, text) }
        return text
    }

    static func format(_ seconds: Int) -> String {
        var t = seconds
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
