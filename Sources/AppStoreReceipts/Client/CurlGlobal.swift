import CLibCurl

/// `curl_global_init`, once per process.
///
/// libcurl requires it before any other call and it is not thread-safe itself; a `static let` is
/// initialised exactly once (`swift_once`), whichever lane creates the first transport.
enum CurlGlobal {
    static let isInitialized: Bool = curl_global_init(recon_curl_global_default) == CURLE_OK
}
