#!/usr/bin/env bash
# Installs the built Ember into a scratch prefix, builds tests/install/consumer against it with
# find_package(Ember), and runs it.
set -euo pipefail
build_dir=$1
source_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$source_dir/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer"
# A model defined in Python, traced, trains on in the installed package's C++ (program_trainer) and
# loads back into its class: with the Python environment of `make test` (.venv), where there is one.
python=${EMBER_PYTHON:-$source_dir/../../.venv/bin/python}
if [[ -x $python ]] && "$python" -c "import ember" 2>/dev/null; then
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s:${LD_LIBRARY_PATH:-}" exec "%s" "$@"\n' "$work/prefix/lib" \
    "$work/build/program_trainer" >"$work/program_trainer.sh"
  chmod +x "$work/program_trainer.sh"
  "$python" "$source_dir/../jit/programs/python_to_cpp.py" "$work/program_trainer.sh" "$work/jit"
else
  echo "consumer_test: no Python environment with ember at $python (make python installs it); the traced-program round trip is skipped"
fi
