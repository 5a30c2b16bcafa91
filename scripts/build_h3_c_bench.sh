#!/usr/bin/env bash
# Builds the C library side of `eddy-bench h3` (docs/h3.md "Against the C library"): uber/h3 v4.5.0 as vendored by
# the h3-py 4.5.0 source distribution on PyPI, compiled with gcc -O3 together with our driver
# scripts/h3_c_bench/h3_c_bench.c, into .build/h3-c/h3_c_bench (the path eddy-bench looks for).
# Usage: bash scripts/build_h3_c_bench.sh   (needs pip, gcc and network access to PyPI the first time)
set -euo pipefail
cd "$(dirname "$0")/.."
out_dir=.build/h3-c
mkdir -p "$out_dir"
sdist="$out_dir/h3-4.5.0.tar.gz"
if [ ! -f "$sdist" ]; then
  # --no-binary h3 (not :all:): the source distribution of h3 itself, while pip may prepare its metadata with the
  # build backend's wheels instead of compiling CMake from source.
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary h3 h3==4.5.0 -d "$out_dir"
fi
src="$out_dir/h3-4.5.0"
rm -rf "$src"
tar -xzf "$sdist" -C "$out_dir"
lib="$src/src/h3lib/src/h3lib"
if [ ! -f "$lib/include/h3api.h.in" ] || [ "$(cat "$src/src/h3lib/VERSION")" != "4.5.0" ]; then
  echo "build_h3_c_bench.sh: $sdist does not hold the vendored h3 4.5.0 library (expected $lib)" >&2
  exit 1
fi
sed -e 's/@H3_VERSION_MAJOR@/4/;s/@H3_VERSION_MINOR@/5/;s/@H3_VERSION_PATCH@/0/' \
  "$lib/include/h3api.h.in" > "$out_dir/h3api.h"
gcc -O3 -I"$out_dir" -I"$lib/include" "$lib"/lib/*.c \
  scripts/h3_c_bench/h3_c_bench.c -o "$out_dir/h3_c_bench" -lm
echo "built $out_dir/h3_c_bench ($(gcc -dumpfullversion) -O3, h3 $(cat "$src/src/h3lib/VERSION"))"
