#ifndef RECEIPT_RECON_CLIBCURL_SHIM_H
#define RECEIPT_RECON_CLIBCURL_SHIM_H

/* The type-checking macros of typecheck-gcc.h turn curl_easy_setopt into a statement expression the
   Clang importer has no use for; the typed helpers below do that checking instead. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/* Swift cannot call C variadic functions (curl_easy_setopt, curl_multi_setopt, curl_easy_getinfo):
   one typed helper per argument type carries them across. */

static inline CURLcode recon_curl_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode recon_curl_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode recon_curl_setopt_str(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode recon_curl_setopt_ptr(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode recon_curl_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

/* The signature of CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
typedef size_t (*recon_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode recon_curl_setopt_data_callback(CURL *easy, CURLoption option, recon_curl_data_callback callback) {
    return curl_easy_setopt(easy, option, callback);
}

static inline CURLMcode recon_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLcode recon_curl_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

/* CURLMsg.data is a union, which Swift imports awkwardly. */
static inline CURLcode recon_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}

/* Composite macros Swift does not import. */
static const long recon_curl_global_default = CURL_GLOBAL_DEFAULT;
static const long recon_curl_http_version_1_1 = CURL_HTTP_VERSION_1_1;

#endif
