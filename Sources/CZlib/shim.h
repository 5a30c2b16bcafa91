// zlib's inflate for zipped sensor exports (EddyImport). libz ships with Linux distributions and Apple SDKs.
#include <zlib.h>
