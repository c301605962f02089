#!/bin/sh
# Build the native tiled Recast driver (tilebench.cpp) next to the shared solo drivers.
#   RECAST_SRC=DIR sh scripts/native/build.sh [OUTDIR]     # default OUTDIR: /tmp/navjump-native
# DIR: an extracted recastnavigation tree (Recast/ and Detour/), as for
# ../shared/tools/recast-bench/build.sh (whose common.h this driver includes; set
# RECAST_BENCH if that folder is elsewhere). g++ -O2, one thread, like the solo drivers.
set -e
SRC=${RECAST_SRC:?set RECAST_SRC to an extracted recastnavigation source tree}
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=${RECAST_BENCH:-$HERE/../../../shared/tools/recast-bench}
OUT=${1:-/tmp/navjump-native}
mkdir -p "$OUT/obj"
CXXFLAGS="-O2 -std=c++17 -I$SRC/Recast/Include -I$SRC/Detour/Include -I$BENCH"
OBJS=""
for f in "$SRC"/Recast/Source/*.cpp "$SRC"/Detour/Source/*.cpp; do
  o="$OUT/obj/$(basename "$f" .cpp).o"
  [ -f "$o" ] || g++ $CXXFLAGS -c "$f" -o "$o"
  OBJS="$OBJS $o"
done
g++ $CXXFLAGS "$HERE/tilebench.cpp" $OBJS -o "$OUT/tilebench"
echo "built: $OUT/tilebench"
