#!/usr/bin/env bash
# Writes the forecast-grid fixtures (Fixtures/forecast/, described in its README) with ecCodes' own tools, starting
# from ecCodes' GRIB2 samples, so that what Eddy reads is what the library writes (issue 31 deliverable 2).
# Needs libeccodes-tools (grib_set, grib_filter, grib_copy; `make test` installs it). Deterministic: the values come
# from an analytic field, the same in Tests/EddyServerTests/ForecastGridReaderTests.swift:
#   WAFS: edr(lat, lon, FL) = 0.02 + 0.04 * (lat - 49) + 0.03 * (lon + 2) + 0.004 * (FL / 10)
#   GTG:  edr(i, j, FL) = 0.02 + 0.01 * i + 0.02 * j + 0.004 * (FL / 10), CAT and mountain wave 0.01 and 0.02 less
set -euo pipefail
out="${1:-Fixtures/forecast}"
samples="$(codes_info -t 2>/dev/null || echo /usr/share/eccodes/samples)"
[ -d "$samples" ] || samples=/usr/share/eccodes/samples
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# values LAT0 DLAT NJ LON0 DLON NI FL OFFSET: the analytic field on a grid scanned west→east, north→south (scanning mode 0).
values() {
  awk -v lat0="$1" -v dlat="$2" -v nj="$3" -v lon0="$4" -v dlon="$5" -v ni="$6" -v fl="$7" -v off="$8" 'BEGIN {
    sep = ""; line = "";
    for (j = 0; j < nj; j++) for (i = 0; i < ni; i++) {
      lat = lat0 - j * dlat; lon = lon0 + i * dlon;
      v = 0.02 + 0.04 * (lat - 49) + 0.03 * (lon + 2) + 0.004 * (fl / 10) - off;
      line = line sep sprintf("%.6f", v); sep = ",";
    }
    print line }'
}

# ---- WAFS (WAFC London, centre egrr): EDR on isobaric levels, regular 0.25° lat/lon grid (9 × 9 points: 51°N…49°N,
# 2°W…0°), reference time 2026-11-28 00 UTC, steps 6 h and 9 h. Levels are the ICAO flight levels' ISA pressures as WAFS
# encodes them: 696.8 hPa (FL100), 300.9 hPa (FL300), 147.5 hPa (FL450). Point (50.5°N, 1.75°W), the 20th, is missing (bitmap).
wafs="$work/wafs.grib2"; : > "$wafs"
for step in 6 9; do
  for level in "69680 100" "30090 300" "14750 450"; do
    set -- $level; pa=$1; fl=$2
    vals="$(values 51 0.25 9 -2 0.25 9 "$fl" 0 | awk -F, -v OFS=, '{ $(2*9+2) = 9999; print }')"
    cat > "$work/rules" <<RULES
set centre = "egrr";
set dataDate = 20261128; set dataTime = 0000;
set tablesVersion = 25; set discipline = 0; set parameterCategory = 19; set parameterNumber = 30;
set typeOfFirstFixedSurface = 100; set scaleFactorOfFirstFixedSurface = 0; set scaledValueOfFirstFixedSurface = $pa;
set stepUnits = 1; set forecastTime = $step;
set Ni = 9; set Nj = 9;
set latitudeOfFirstGridPointInDegrees = 51; set longitudeOfFirstGridPointInDegrees = -2;
set latitudeOfLastGridPointInDegrees = 49; set longitudeOfLastGridPointInDegrees = 0;
set iDirectionIncrementInDegrees = 0.25; set jDirectionIncrementInDegrees = 0.25;
set bitsPerValue = 16;
set bitmapPresent = 1; set missingValue = 9999;
set values = { $vals };
write;
RULES
    grib_filter -o "$work/one.grib2" "$work/rules" "$samples/regular_ll_pl_grib2.tmpl"
    cat "$work/one.grib2" >> "$wafs"
  done
done
# One field that is not turbulence (icing severity, 0/19/37): counted as skipped, not stored.
grib_set -s parameterNumber=37 -w count=1 "$wafs" "$work/icing.grib2"
grib_copy -w count=1 "$work/icing.grib2" "$work/icing1.grib2"
cat "$work/icing1.grib2" >> "$wafs"
cp "$wafs" "$out/wafs-egrr-isobaric.grib2"

# ---- GTG (NCEP, centre kwbc): EDPARM (0/19/30), CAT (29) and mountain wave (28) on specific altitudes above MSL
# (fixed surface 102, metres: 3048 m = FL100, 10668 m = FL350) on a Lambert conformal grid like GTG's CONUS grid (LoV
# 95°W, standard parallel 25°N, 13.545 km spacing) cut to 6 × 5 points from 38°N 97°W, scanned south→north (scanning
# mode 64), reference 2026-11-28 03 UTC, step 3 h. Values by grid index (i west→east, j south→north), since the points'
# latitudes and longitudes are the projection's, which ecCodes computes:
#   edr(i, j, FL) = 0.02 + 0.01 * i + 0.02 * j + 0.004 * (FL / 10) - offset   (offset 0, 0.01, 0.02 for EDPARM, CAT, MWT)
grib_set -s gridDefinitionTemplateNumber=30 "$samples/GRIB2.tmpl" "$work/lambert.tmpl"
gtg="$work/gtg.grib2"; : > "$gtg"
for param in "30 0" "29 0.01" "28 0.02"; do
  set -- $param; number=$1; off=$2
  for level in "3048 100" "10668 350"; do
    set -- $level; metres=$1; fl=$2
    vals="$(awk -v fl="$fl" -v off="$off" 'BEGIN { sep = ""; line = "";
      for (j = 0; j < 5; j++) for (i = 0; i < 6; i++) {
        line = line sep sprintf("%.6f", 0.02 + 0.01 * i + 0.02 * j + 0.004 * (fl / 10) - off); sep = "," }
      print line }')"
    cat > "$work/rules" <<RULES
set centre = "kwbc";
set dataDate = 20261128; set dataTime = 0300;
set tablesVersion = 25; set discipline = 0; set parameterCategory = 19; set parameterNumber = $number;
set typeOfFirstFixedSurface = 102; set scaleFactorOfFirstFixedSurface = 0; set scaledValueOfFirstFixedSurface = $metres;
set stepUnits = 1; set forecastTime = 3;
set shapeOfTheEarth = 6;
set Nx = 6; set Ny = 5;
set latitudeOfFirstGridPointInDegrees = 38; set longitudeOfFirstGridPointInDegrees = 263;
set LaDInDegrees = 25; set LoVInDegrees = 265; set Latin1InDegrees = 25; set Latin2InDegrees = 25;
set DxInMetres = 13545; set DyInMetres = 13545;
set scanningMode = 64;
set bitsPerValue = 16;
set values = { $vals };
write;
RULES
    grib_filter -o "$work/one.grib2" "$work/rules" "$work/lambert.tmpl"
    cat "$work/one.grib2" >> "$gtg"
  done
done
cp "$gtg" "$out/gtg-kwbc-altitude.grib2"

# ---- Bad messages: an EDR field on the ground surface (fixed surface 1: no layer), then the first WAFS message cut
# short (its end section missing), each a per-message error; the file has no usable message.
grib_set -s typeOfFirstFixedSurface=1 -w count=1 "$out/wafs-egrr-isobaric.grib2" "$work/surface.grib2"
grib_copy -w count=1 "$work/surface.grib2" "$work/surface1.grib2"
grib_copy -w count=1 "$out/wafs-egrr-isobaric.grib2" "$work/first.grib2"
size=$(stat -c %s "$work/first.grib2")
{ cat "$work/surface1.grib2"; head -c $((size - 40)) "$work/first.grib2"; } > "$out/bad-messages.grib2"
ls -l "$out"
