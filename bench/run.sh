#!/usr/bin/env bash
# Builds bench/overhead.cpp twice, against Ember and against libtorch (Debian's libtorch-dev,
# installed here if missing), runs both at 1 and 2 threads on this machine, and prints one table
# with the ratio Ember/libtorch for every workload. Then the Python-side benchmark against
# PyTorch from PyPI (bench/python.sh; its matmul is the fair reference, as Debian's libtorch has
# no fast BLAS) and the checkpoint benchmark (bench/io.sh). Nothing here is a test: it only
# reports.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh bench
build=${BUILD_DIR:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

flags=(-std=c++20 -O2 -march=native)
g++ "${flags[@]}" -fopenmp -I "$build/include" bench/overhead.cpp -o "$out/ember" \
  -L"$build" -lember -Wl,-rpath,"$PWD/$build"
g++ "${flags[@]}" -DBENCH_TORCH -I/usr/include/torch/csrc/api/include bench/overhead.cpp \
  -o "$out/torch" -ltorch -ltorch_cpu -lc10

for threads in 1 2; do
  OMP_NUM_THREADS=$threads "$out/ember" "$threads" >"$out/ember.$threads"
  OMP_NUM_THREADS=$threads "$out/torch" "$threads" >"$out/torch.$threads"
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "libtorch: $(dpkg-query -W -f='${Version}' libtorch-dev)"
printf '%-22s %8s %12s %12s %8s  %s\n' workload threads ember libtorch ratio unit
for threads in 1 2; do
  while read -r _ name value unit; do
    [[ $name == threads ]] && continue
    ref=$(awk -v n="$name" '$2 == n {print $3}' "$out/torch.$threads")
    # Ratios read "Ember's cost / libtorch's cost": time ratios as they are, throughput inverted.
    if [[ $unit == GFLOP/s ]]; then ratio=$(awk -v a="$value" -v b="$ref" 'BEGIN{printf "%.2f", b/a}')
    else ratio=$(awk -v a="$value" -v b="$ref" 'BEGIN{printf "%.2f", a/b}'); fi
    printf '%-22s %8s %12s %12s %8s  %s\n' "$name" "$threads" "$value" "$ref" "${ratio}x" "$unit"
  done <"$out/ember.$threads"
done
echo "ratio = Ember time / libtorch time (for GFLOP/s: libtorch rate / Ember rate); below 1 is faster"

echo
bench/python.sh
echo
bench/io.sh
