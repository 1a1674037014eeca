import CLibCurl
import Foundation

/// One request while libcurl works on it: the easy handle's options, and the response as it arrives.
///
/// Threading: lives on the curl loop thread only (created, called back and finished there), so it needs
/// no lock. libcurl reaches it through an unretained `Unmanaged` pointer given as WRITEDATA/HEADERDATA;
/// the loop's table of active transfers holds the strong reference until the handle has left the multi
/// handle and been reset, so the pointer never outlives the object and nothing is retained twice.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    let completion: CurlCompletion
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var headers: [String: String] = [:]
    private var body = Data()

    init(easy: UnsafeMutableRawPointer, completion: CurlCompletion) {
        self.easy = easy
        self.completion = completion
    }

    deinit { curl_slist_free_all(headerList) }

    /// Sets every option of `request` on the (freshly reset) easy handle; the first failing code, if any.
    func configure(_ request: CurlRequest) -> CURLcode {
        var list: UnsafeMutablePointer<curl_slist>?
        // An empty `Expect:` stops libcurl from holding bodies over 1 KiB for a 100-continue round trip.
        for line in request.headers.map({ "\($0.key): \($0.value)" }) + ["Expect:"] {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                return CURLE_OUT_OF_MEMORY
            }
            list = longer
        }
        headerList = list

        var code = CURLE_OK
        func set(_ step: @autoclosure () -> CURLcode) {
            if code == CURLE_OK { code = step() }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        set(recon_curl_setopt_str(easy, CURLOPT_URL, request.url))
        set(recon_curl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        // Signals would reach a multi-threaded process at random threads; timeouts need none.
        set(recon_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(recon_curl_setopt_long(easy, CURLOPT_TCP_NODELAY, 1))
        // One request per connection at a time, as URLSession did; the in-flight cap is the throttle's.
        set(recon_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, recon_curl_http_version_1_1))
        set(recon_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutMilliseconds))
        set(recon_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list))
        // Size first: COPYPOSTFIELDS copies that many bytes instead of stopping at a NUL.
        set(recon_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
        if request.body.isEmpty {
            set(recon_curl_setopt_str(easy, CURLOPT_COPYPOSTFIELDS, ""))
        } else {
            set(request.body.withUnsafeBytes {
                recon_curl_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
            })
        }
        set(recon_curl_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let length = size * count
            guard let data, let context else { return length }
            Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                .body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
            return length
        })
        set(recon_curl_setopt_ptr(easy, CURLOPT_WRITEDATA, context))
        set(recon_curl_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let length = size * count
            guard let data, let context else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receivedHeaderLine(line)
            return length
        })
        set(recon_curl_setopt_ptr(easy, CURLOPT_HEADERDATA, context))
        return code
    }

    /// One header line as libcurl delivers it, CRLF included.
    private func receivedHeaderLine(_ line: String) {
        // A status line starts a new header block (after `100 Continue`, or a proxy's answer): only the
        // final response's headers count.
        if line.hasPrefix("HTTP/") {
            headers.removeAll(keepingCapacity: true)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if headers[name] == nil { headers[name] = value }
    }

    /// The response once libcurl reported the transfer done with CURLE_OK.
    func reply() -> HTTPReply {
        var code = 0
        _ = recon_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return HTTPReply(statusCode: code, headers: headers, body: body)
    }

    /// Why the transfer failed, for a code other than CURLE_OK.
    func failure(_ code: CURLcode) -> VerifyReceiptTransportFailure {
        var osErrno = 0
        _ = recon_curl_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
        return VerifyReceiptTransportFailure(curlCode: code, osErrno: Int32(truncatingIfNeeded: osErrno))
    }
}
