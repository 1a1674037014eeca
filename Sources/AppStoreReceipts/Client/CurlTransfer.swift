import CLibCurl
import Foundation

/// One request while libcurl works on it: the easy handle's per-request options, and the response as
/// it arrives.
///
/// Threading: lives on the curl loop thread only (created, called back and finished there), so it needs
/// no lock. libcurl reaches it through an unretained `Unmanaged` pointer given as WRITEDATA/HEADERDATA;
/// the loop's table of active transfers holds the strong reference until the handle has left the multi
/// handle and the pointers were cleared (`detach`), so the pointer never outlives the object and nothing
/// is retained twice.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    let completion: CurlCompletion
    /// A header list of this transfer's own, when the shared ones (`CurlHeaderLists`) could not serve.
    private let ownedHeaderList: UnsafeMutablePointer<curl_slist>?
    /// The final response's header lines as received; read on demand by `HTTPReply`.
    private var headerBlock: [UInt8] = []
    private var body = Data()
    private let answerLimit: AnswerSizeLimit
    /// Set when the body passed `answerLimit` and the write callback stopped the transfer.
    private var abandonedBody = false

    init(
        easy: UnsafeMutableRawPointer, completion: CurlCompletion, ownedHeaderList: UnsafeMutablePointer<curl_slist>?,
        answerLimit: AnswerSizeLimit
    ) {
        self.easy = easy
        self.completion = completion
        self.ownedHeaderList = ownedHeaderList
        self.answerLimit = answerLimit
    }

    deinit { curl_slist_free_all(ownedHeaderList) }

    /// The options every request shares, set once when the loop creates an easy handle (handles are
    /// reused without `curl_easy_reset`, which cost more than the request's own options).
    /// - Parameter close: how the handle's connections close their sockets (the loop forgets them
    ///   first), called with `closeContext`.
    static func prepare(
        _ easy: UnsafeMutableRawPointer, closeContext: UnsafeMutableRawPointer,
        close: curl_closesocket_callback
    ) -> CURLcode {
        var code = CURLE_OK
        func set(_ step: @autoclosure () -> CURLcode) {
            if code == CURLE_OK { code = step() }
        }
        set(recon_curl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        // Signals would reach a multi-threaded process at random threads; timeouts need none.
        set(recon_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(recon_curl_setopt_long(easy, CURLOPT_TCP_NODELAY, 1))
        // One request per connection at a time, as URLSession did; the in-flight cap is the throttle's.
        set(recon_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, recon_curl_http_version_1_1))
        set(recon_curl_setopt_closesocket_callback(easy, close))
        set(recon_curl_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, closeContext))
        set(
            recon_curl_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                let length = size * count
                guard let data, let context else { return length }
                return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    .receivedBody(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
            })
        set(
            recon_curl_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                let length = size * count
                guard let data, let context else { return length }
                Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    .receivedHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
                return length
            })
        return code
    }

    /// Sets the options of `request` on the prepared handle; the first failing code, if any.
    func configure(_ request: CurlRequest, headerList: UnsafeMutablePointer<curl_slist>?) -> CURLcode {
        var code = CURLE_OK
        func set(_ step: @autoclosure () -> CURLcode) {
            if code == CURLE_OK { code = step() }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        set(recon_curl_setopt_str(easy, CURLOPT_URL, request.url))
        set(recon_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutMilliseconds))
        // Refuses a `Content-Length` above the limit before reading the body; chunked bodies have none,
        // so `receivedBody` counts too.
        set(recon_curl_setopt_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(answerLimit.bytes)))
        set(recon_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
        switch request.method {
        case .get:
            // Also undoes a POST of the handle's previous transfer.
            set(recon_curl_setopt_long(easy, CURLOPT_HTTPGET, 1))
        case .post:
            // Size first: COPYPOSTFIELDS copies that many bytes instead of stopping at a NUL.
            set(recon_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            if request.body.isEmpty {
                set(recon_curl_setopt_str(easy, CURLOPT_COPYPOSTFIELDS, ""))
            } else {
                set(
                    request.body.withUnsafeBytes {
                        recon_curl_setopt_ptr(
                            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                    })
            }
        }
        set(recon_curl_setopt_ptr(easy, CURLOPT_WRITEDATA, context))
        set(recon_curl_setopt_ptr(easy, CURLOPT_HEADERDATA, context))
        return code
    }

    /// Clears the handle's pointers to this transfer, once it has left the multi handle, so a reused
    /// handle can never call back into a freed object.
    func detach() {
        _ = recon_curl_setopt_ptr(easy, CURLOPT_WRITEDATA, nil)
        _ = recon_curl_setopt_ptr(easy, CURLOPT_HEADERDATA, nil)
        _ = recon_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, nil)
    }

    /// Keeps a piece of the body, or stops the transfer (a return other than `count` makes libcurl end
    /// it with CURLE_WRITE_ERROR) once the body would pass the limit: nothing beyond it is ever held.
    private func receivedBody(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int {
        guard answerLimit.admits(count, after: body.count) else {
            abandonedBody = true
            body = Data()
            return 0
        }
        body.append(bytes, count: count)
        return count
    }

    /// One header line as libcurl delivers it, CRLF included. Kept as bytes: building Strings and a
    /// dictionary of every header here cost a tenth of the loop thread's CPU, and the job reads one.
    private func receivedHeaderLine(_ line: UnsafeRawBufferPointer) {
        // A status line starts a new header block (after `100 Continue`, or a proxy's answer): only the
        // final response's headers count.
        if line.starts(with: "HTTP/".utf8) {
            headerBlock.removeAll(keepingCapacity: true)
            return
        }
        // The blank line ends the headers: the body is sized once from `Content-Length`, where
        // appending chunk by chunk grew it (a new buffer and a copy) a few times per answer.
        if line.allSatisfy({ $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) {
            if body.isEmpty,
                let length = HTTPHeaderFields.value(of: "content-length", in: headerBlock).flatMap(Int.init),
                (1...Self.largestPresizedBody).contains(length)
            {
                body = Data(capacity: length)
            }
            return
        }
        if headerBlock.isEmpty { headerBlock.reserveCapacity(Self.headerBlockCapacity) }
        headerBlock.append(contentsOf: line)
    }

    /// A `Content-Length` above this is not trusted to size the body up front (verifyReceipt's answers
    /// are tens of kilobytes); such a body grows as it comes, up to the answer limit.
    private static let largestPresizedBody = 1 << 20
    /// Room for a usual header block (Apple's run to a few hundred bytes), reserved at its first line.
    private static let headerBlockCapacity = 512

    /// The response once libcurl reported the transfer done with CURLE_OK.
    func reply() -> HTTPReply {
        var code = 0
        _ = recon_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return HTTPReply(statusCode: code, headerBlock: headerBlock, body: body)
    }

    /// Why the transfer failed, for a code other than CURLE_OK.
    func failure(_ code: CURLcode) -> VerifyReceiptTransportFailure {
        if abandonedBody || code == CURLE_FILESIZE_EXCEEDED { return answerLimit.failure }
        var osErrno = 0
        _ = recon_curl_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
        return VerifyReceiptTransportFailure(curlCode: code, osErrno: Int32(truncatingIfNeeded: osErrno))
    }
}
