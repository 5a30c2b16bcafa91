// System library module for libcurl (Debian: libcurl4-openssl-dev).
#include <curl/curl.h>
