// CCurlShim: fixed-type wrappers around libcurl's variadic curl_easy_setopt / curl_easy_getinfo,
// which Swift cannot call directly. Each wrapper passes exactly one argument of the documented type.
#ifndef EDDY_CCURL_SHIM_H
#define EDDY_CCURL_SHIM_H

#include <curl/curl.h>

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
