#ifndef RECEIPT_RECON_CLIBCURL_SHIM_H
#define RECEIPT_RECON_CLIBCURL_SHIM_H

/* The type-checking macros of typecheck-gcc.h turn curl_easy_setopt into a statement expression the
   Clang importer has no use for; the typed helpers below do that checking instead. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

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

static inline CURLcode recon_curl_setopt_closesocket_callback(CURL *easy, curl_closesocket_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, callback);
}

static inline CURLMcode recon_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode recon_curl_multi_setopt_ptr(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode recon_curl_multi_setopt_socket_callback(CURLM *multi, curl_socket_callback callback) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
}

static inline CURLMcode recon_curl_multi_setopt_timer_callback(CURLM *multi, curl_multi_timer_callback callback) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
}

static inline CURLcode recon_curl_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

/* CURLMsg.data is a union, which Swift imports awkwardly. */
static inline CURLcode recon_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}

/* The curl loop waits with epoll, which Swift's Glibc module does not expose; struct epoll_event is
   packed on x86-64, so it stays on this side and Swift sees descriptors and CURL_CSELECT_* flags. */

static inline int recon_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

/* Watches `fd` for what libcurl asked (CURL_POLL_IN/OUT/INOUT), or stops watching it (CURL_POLL_REMOVE).
   `known`: whether the caller believes `fd` is in the set already, which picks the operation tried first
   (the other one is the fallback: a descriptor closed and reused behind the caller's back). */
static inline int recon_epoll_watch(int epoll, int fd, int what, int known) {
    if (what == CURL_POLL_REMOVE) {
        return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
    }
    struct epoll_event event = {0};
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = fd;
    if (epoll_ctl(epoll, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event) == 0) {
        return 0;
    }
    return epoll_ctl(epoll, known ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
}

/* Waits up to `timeout_ms` (-1: no limit); fills `fds` and `flags` (CURL_CSELECT_IN/OUT/ERR) and returns
   how many descriptors are ready, 0 on timeout, -1 on error (EINTR included). */
static inline int recon_epoll_wait(int epoll, int *fds, int *flags, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    int count = epoll_wait(epoll, events, capacity < 256 ? capacity : 256, timeout_ms);
    for (int i = 0; i < count; i++) {
        uint32_t ready = events[i].events;
        fds[i] = events[i].data.fd;
        flags[i] = ((ready & (EPOLLIN | EPOLLHUP)) ? CURL_CSELECT_IN : 0)
            | ((ready & EPOLLOUT) ? CURL_CSELECT_OUT : 0) | ((ready & EPOLLERR) ? CURL_CSELECT_ERR : 0);
    }
    return count;
}

static inline int recon_eventfd_create(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

static inline void recon_eventfd_signal(int fd) {
    uint64_t one = 1;
    (void)!write(fd, &one, sizeof one);
}

static inline void recon_eventfd_drain(int fd) {
    uint64_t count;
    (void)!read(fd, &count, sizeof count);
}

/* Composite macros Swift does not import. */
static const curl_socket_t recon_curl_socket_timeout = CURL_SOCKET_TIMEOUT;
static const long recon_curl_global_default = CURL_GLOBAL_DEFAULT;
static const long recon_curl_http_version_1_1 = CURL_HTTP_VERSION_1_1;

#endif
