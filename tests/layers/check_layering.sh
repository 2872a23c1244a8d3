#!/usr/bin/env bash
# Proves that the build enforces Ember's layers (cmake/EmberLayers.cmake): compiled from a layer's
# include root, a header of the layer itself compiles, and a header of a layer above it does not,
# because that folder is not there (nor its generated headers: LAYER/generated/).
#   check_layering.sh CXX LAYER_ROOTS layer:own_header:upward_header ...
set -euo pipefail
cxx=$1 roots=$2
shift 2
probe() {  # probe LAYER HEADER: compiles a file that includes ember/HEADER from LAYER's root
  printf '#include "ember/%s"\n' "$2" |
    "$cxx" -std=c++20 -fsyntax-only -I"$roots/$1" -I"$roots/$1/generated" -x c++ - 2>&1
}
for spec in "$@"; do
  IFS=: read -r layer own up <<<"$spec"
  if ! out=$(probe "$layer" "$own"); then
    echo "FAIL: $layer cannot include its own ember/$own:"; echo "$out"; exit 1
  fi
  if out=$(probe "$layer" "$up"); then
    echo "FAIL: $layer compiles with ember/$up, a layer above it"; exit 1
  fi
  if ! grep -q "ember/$up: No such file" <<<"$out"; then
    echo "FAIL: including ember/$up from $layer failed for another reason:"; echo "$out"; exit 1
  fi
  echo "ok: $layer includes ember/$own, and ember/$up does not compile there"
done
