#!/usr/bin/env bash
# Checkpoint throughput: Ember's io::save/io::load against torch.save/torch.load (PyTorch from
# PyPI, installed here into .venv-bench) and against a plain write(2)/read(2) of the same bytes,
# on a ~1 GB state of 50 float32 tensors, in one run. Prints a table of ratios; asserts nothing.
#   bench/io.sh [TENSORS] [ELEMENTS_PER_TENSOR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
count=${1:-50}
elements=${2:-5000000}
venv=.venv-bench
if [[ ! -x $venv/bin/python ]]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -c "import torch" 2>/dev/null || "$venv/bin/pip" install -q torch numpy

out=$(mktemp -d)
scratch=$(mktemp -d -p "$PWD/$build")  # on the build's disk, not a tmpfs
trap 'rm -rf "$out" "$scratch"' EXIT
g++ -std=c++20 -O2 -I "$build/include" bench/io_bench.cpp -o "$out/io_bench" \
  -L"$build" -lember -Wl,-rpath,"$PWD/$build"
OMP_NUM_THREADS=2 "$out/io_bench" "$scratch" "$count" "$elements" >"$out/ember"
"$venv/bin/python" bench/io_bench.py "$scratch" "$count" "$elements" >"$out/torch"

value() { awk -v n="$2" '$1 == n {print $2}' "$1"; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "torch: $("$venv/bin/python" -c 'import torch; print(torch.__version__)')"
echo "state: $(value "$out/ember" state_size) GB in $count float32 tensors"
printf '%-26s %10s %10s %10s %12s %12s\n' metric ember torch plain ember/torch ember/plain
for m in save_nofsync save_fsync load_verify; do
  e=$(value "$out/ember" "$m"); t=$(value "$out/torch" "$m")
  case $m in
    save_nofsync) p=$(value "$out/ember" plain_write_nofsync) ;;
    save_fsync) p=$(value "$out/ember" plain_write_fsync) ;;
    load_verify) p=$(value "$out/ember" plain_read) ;;
  esac
  printf '%-26s %10s %10s %10s %12s %12s\n' "$m (GB/s)" "$e" "$t" "$p" \
    "$(awk -v a="$e" -v b="$t" 'BEGIN{printf "%.2fx", a/b}')" \
    "$(awk -v a="$e" -v b="$p" 'BEGIN{printf "%.2fx", a/b}')"
done
for m in save_peak_extra_memory load_extra_anon_memory; do
  printf '%-26s %10s %10s\n' "$m (%)" "$(value "$out/ember" "$m")" "$(value "$out/torch" "$m")"
done
echo "GB/s: higher is faster; ratios above 1 mean Ember is faster. Loads read from the page cache."
echo "load_verify: Ember opens, maps and verifies every checksum; torch.load reads into new memory."
