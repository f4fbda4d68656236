#ifndef AGGREGATOR_CCURL_SHIM_H
#define AGGREGATOR_CCURL_SHIM_H

#include <curl/curl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

// curl_easy_setopt and friends are variadic and CURL_GLOBAL_ALL is a macro expression:
// neither imports into Swift, so these typed wrappers stand in for them.

static inline CURLcode aggregator_curl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}

static inline CURLcode aggregator_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggregator_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggregator_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggregator_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode aggregator_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode aggregator_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode aggregator_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(handle, option, list);
}

static inline CURLcode aggregator_curl_set_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode aggregator_curl_set_header_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

static inline CURLcode aggregator_curl_set_opensocket_function(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

static inline CURLcode aggregator_curl_set_prereq_function(CURL *handle, curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

static inline int aggregator_curl_prereq_ok(void) {
    return CURL_PREREQFUNC_OK;
}

static inline int aggregator_curl_prereq_abort(void) {
    return CURL_PREREQFUNC_ABORT;
}

static inline CURLcode aggregator_curl_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode aggregator_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline curl_socket_t aggregator_curl_socket_bad(void) {
    return CURL_SOCKET_BAD;
}

/// The numeric address curl is about to connect to, written into `buffer`; 0 when it is not IP.
static inline int aggregator_curl_address_string(const struct curl_sockaddr *address, char *buffer, socklen_t size) {
    if (address->family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&address->addr;
        return inet_ntop(AF_INET, &v4->sin_addr, buffer, size) != NULL;
    }
    if (address->family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&address->addr;
        return inet_ntop(AF_INET6, &v6->sin6_addr, buffer, size) != NULL;
    }
    return 0;
}

#endif
