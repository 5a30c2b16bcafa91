// System library module for ecCodes, ECMWF's GRIB library (Debian: libeccodes-dev; docs/nowcast.md "Forecast grids").
// Only eddy-server's forecast-grid reader uses it, and only with trait Tools (Package.swift).
#include <eccodes.h>
