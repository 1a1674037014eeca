import CLibCurl

/// The `curl_slist`s of request headers, built once per distinct header set: the client sends the same
/// few headers with every request, and building the list each time was a handful of allocations per
/// request on the loop thread.
///
/// Threading: owned by the curl loop thread. A list stays alive until `freeAll()`, which the loop calls
/// once no easy handle can point at it any more.
final class CurlHeaderLists {
    /// Distinct header sets kept; a caller with more gets nil and builds a list of its own.
    static let capacity = 16
    private var lists: [[String: String]: UnsafeMutablePointer<curl_slist>] = [:]

    /// The shared list for `headers`, or nil when the cache is full or memory ran out.
    func list(for headers: [String: String]) -> UnsafeMutablePointer<curl_slist>? {
        if let list = lists[headers] { return list }
        guard lists.count < Self.capacity, let list = Self.makeList(headers) else { return nil }
        lists[headers] = list
        return list
    }

    func freeAll() {
        for list in lists.values { curl_slist_free_all(list) }
        lists.removeAll()
    }

    /// A new list the caller owns, or nil when memory ran out.
    static func makeList(_ headers: [String: String]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        // An empty `Expect:` stops libcurl from holding bodies over 1 KiB for a 100-continue round trip.
        for line in headers.map({ "\($0.key): \($0.value)" }) + ["Expect:"] {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                return nil
            }
            list = longer
        }
        return list
    }
}
