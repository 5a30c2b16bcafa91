#include "CCurlShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The libcurl entry points Eddy uses, resolved by dlsym (see CCurlShim.h for why libcurl is not linked).
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    void (*easy_reset)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *value);
    void (*slist_free_all)(struct curl_slist *list);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char load_error[512] = "";

static void *resolve(void *library, const char *name) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL && load_error[0] == '\0') {
        snprintf(load_error, sizeof load_error, "libcurl has no %s", name);
    }
    return symbol;
}

static void load(void) {
    // The SONAME of libcurl 7.16 and later (Debian: libcurl4); the development symlink as a fallback.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl.so.4: %s", why ? why : "not found");
        return;
    }
    curl.global_init = (CURLcode (*)(long))resolve(library, "curl_global_init");
    curl.easy_init = (CURL *(*)(void))resolve(library, "curl_easy_init");
    curl.easy_cleanup = (void (*)(CURL *))resolve(library, "curl_easy_cleanup");
    curl.easy_reset = (void (*)(CURL *))resolve(library, "curl_easy_reset");
    curl.easy_perform = (CURLcode (*)(CURL *))resolve(library, "curl_easy_perform");
    curl.easy_strerror = (const char *(*)(CURLcode))resolve(library, "curl_easy_strerror");
    curl.easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))resolve(library, "curl_easy_setopt");
    curl.easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))resolve(library, "curl_easy_getinfo");
    curl.slist_append = (struct curl_slist *(*)(struct curl_slist *, const char *))resolve(library, "curl_slist_append");
    curl.slist_free_all = (void (*)(struct curl_slist *))resolve(library, "curl_slist_free_all");
    if (load_error[0] != '\0') return;
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %s", curl.easy_strerror(code));
        return;
    }
    loaded = 1;
}

int eddy_curl_load(void) {
    pthread_once(&load_once, load);
    return loaded;
}

const char *eddy_curl_load_error(void) { return load_error; }

CURL *eddy_curl_easy_init(void) { return curl.easy_init(); }
void eddy_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void eddy_curl_easy_reset(CURL *handle) { curl.easy_reset(handle); }
CURLcode eddy_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *eddy_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
struct curl_slist *eddy_curl_slist_append(struct curl_slist *list, const char *value) { return curl.slist_append(list, value); }
void eddy_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode eddy_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode eddy_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode eddy_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode eddy_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode eddy_curl_set_write_callback(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *), void *userdata) {
    CURLcode code = curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl.easy_setopt(handle, CURLOPT_WRITEDATA, userdata);
}

CURLcode eddy_curl_set_header_callback(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *), void *userdata) {
    CURLcode code = curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl.easy_setopt(handle, CURLOPT_HEADERDATA, userdata);
}

CURLcode eddy_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode eddy_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl.easy_getinfo(handle, info, value);
}
