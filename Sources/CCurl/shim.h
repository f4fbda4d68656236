#ifndef AGGREGATOR_CCURL_SHIM_H
#define AGGREGATOR_CCURL_SHIM_H

#include <curl/curl.h>

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

#endif
