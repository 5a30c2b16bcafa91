// CCurlShim: libcurl loaded on first use, and fixed-type wrappers around its variadic curl_easy_setopt /
// curl_easy_getinfo, which Swift cannot call directly.
//
// libcurl is not linked: `eddy_curl_load` opens libcurl.so.4 with dlopen the first time a CurlTransport is made, so a
// process that never talks to a server (an offline replay, the engine without a server) does not map libcurl and its
// ~30 dependencies (OpenSSL, GnuTLS, Kerberos, LDAP…), about 5 MB of resident memory (docs/sync.md, "Transports").
// Every other function here may only be called after `eddy_curl_load` returned 1.
#ifndef EDDY_CCURL_SHIM_H
#define EDDY_CCURL_SHIM_H

#include <stddef.h>
#include <curl/curl.h>

/// Loads libcurl (once per process, thread-safe) and runs curl_global_init; returns 1 on success, 0 on failure.
int eddy_curl_load(void);
/// Why the load failed (dlopen/dlsym/global-init message), or an empty string after a successful load.
const char *eddy_curl_load_error(void);

/// curl_easy_init.
CURL *eddy_curl_easy_init(void);
/// curl_easy_cleanup.
void eddy_curl_easy_cleanup(CURL *handle);
/// curl_easy_reset.
void eddy_curl_easy_reset(CURL *handle);
/// curl_easy_perform.
CURLcode eddy_curl_easy_perform(CURL *handle);
/// curl_easy_strerror.
const char *eddy_curl_easy_strerror(CURLcode code);
/// curl_slist_append.
struct curl_slist *eddy_curl_slist_append(struct curl_slist *list, const char *value);
/// curl_slist_free_all.
void eddy_curl_slist_free_all(struct curl_slist *list);

/// Sets a `long` option (timeouts, flags).
CURLcode eddy_curl_setopt_long(CURL *handle, CURLoption option, long value);
/// Sets a C string option (URL, proxy, encoding); libcurl copies the string.
CURLcode eddy_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
/// Sets a pointer option (WRITEDATA, HTTPHEADER list, POSTFIELDS).
CURLcode eddy_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
/// Sets a `curl_off_t` option (POSTFIELDSIZE_LARGE).
CURLcode eddy_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
/// Installs a write callback (CURLOPT_WRITEFUNCTION) and its user pointer.
CURLcode eddy_curl_set_write_callback(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *), void *userdata);
/// Installs a header callback (CURLOPT_HEADERFUNCTION) and its user pointer.
CURLcode eddy_curl_set_header_callback(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *), void *userdata);
/// Reads a `long` info value (response code).
CURLcode eddy_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
/// Reads a `double` info value (total time).
CURLcode eddy_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);

#endif
