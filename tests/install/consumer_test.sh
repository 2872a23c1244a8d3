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
# A CPU-only consumer links no CUDA library, even when Ember was built with the CUDA backend (a
# library libember opens on first use, installed beside it).
if grep -E -q 'cudart|cudnn|nccl' "$work/build/build.ninja"; then
  echo "consumer_test: the consumer's build names a CUDA library:" >&2
  grep -E -o '[^ ]*(cudart|cudnn|nccl)[^ ]*' "$work/build/build.ninja" | sort -u >&2
  exit 1
fi
if LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" ldd "$work/build/consumer" | grep -E 'cudart|cudnn|nccl'; then
  echo "consumer_test: the consumer loads a CUDA library at start" >&2
  exit 1
fi
if [[ -f $build_dir/libember_cuda.so && ! -f $work/prefix/lib/libember_cuda.so ]]; then
  echo "consumer_test: libember_cuda.so is not installed beside libember.so" >&2
  exit 1
fi
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
