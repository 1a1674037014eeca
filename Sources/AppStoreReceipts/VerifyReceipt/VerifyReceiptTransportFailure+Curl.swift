import CLibCurl
import Glibc

extension VerifyReceiptTransportFailure {
    /// The failure of a transfer libcurl ended with `curlCode`; `osErrno` is CURLINFO_OS_ERRNO.
    ///
    /// Details are fixed words and numbers: never libcurl's error buffer, which may quote the URL or
    /// bytes of the exchange, and never the request body (receipt data and the shared secret).
    init(curlCode: CURLcode, osErrno: Int32) {
        let reset = osErrno == ECONNRESET || osErrno == EPIPE
        switch curlCode {
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut
        case CURLE_COULDNT_CONNECT:
            switch osErrno {
            case ECONNREFUSED: self = .connectionFailed(detail: "connection refused")
            case ENETUNREACH, EHOSTUNREACH: self = .connectionFailed(detail: "host unreachable")
            default: self = .connectionFailed(detail: "could not connect (errno \(osErrno))")
            }
        case CURLE_COULDNT_RESOLVE_HOST:
            self = .connectionFailed(detail: "host not found")
        case CURLE_COULDNT_RESOLVE_PROXY:
            self = .connectionFailed(detail: "proxy not found")
        case CURLE_GOT_NOTHING:
            self = .connectionFailed(detail: "connection closed without a response")
        case CURLE_PARTIAL_FILE:
            self = .connectionFailed(detail: "connection closed mid-response")
        case CURLE_RECV_ERROR:
            self = .connectionFailed(detail: reset ? "connection reset" : "receive failed (errno \(osErrno))")
        case CURLE_SEND_ERROR:
            self = .connectionFailed(
                detail: reset ? "connection reset while sending" : "send failed (errno \(osErrno))")
        case CURLE_WEIRD_SERVER_REPLY:
            self = .connectionFailed(detail: "malformed HTTP response")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CLIENTCERT:
            self = .connectionFailed(detail: "TLS failure (curl \(curlCode.rawValue))")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            self = .connectionFailed(detail: "unsupported or malformed URL")
        default:
            // curl_easy_strerror is a fixed English phrase per code, safe to show.
            self = .connectionFailed(
                detail: "curl \(curlCode.rawValue): \(String(cString: curl_easy_strerror(curlCode)))")
        }
    }
}
