#!/usr/bin/env bash
# Builds bench/overhead.cpp twice, against Ember and against libtorch (Debian's libtorch-dev,
# installed here if missing), runs both at 1 and 2 threads on this machine, and prints one table
# with the ratio Ember/libtorch for every workload. Debian's libtorch has no fast BLAS, so the
# matmul is also measured against PyTorch from PyPI (MKL; installed into .venv-bench). Then the
# Python-side benchmark (bench/python.sh) and the checkpoint benchmark (bench/io.sh). Nothing
# here is a test: it only reports.
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

venv=.venv-bench
if [[ ! -x $venv/bin/python ]]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -c "import torch" 2>/dev/null || "$venv/bin/pip" install -q torch numpy
echo
echo "matmul against PyTorch $("$venv/bin/python" -c 'import torch; print(torch.__version__)') from PyPI (MKL):"
printf '%-22s %8s %12s %12s %8s  %s\n' workload threads ember torch ratio unit
for threads in 1 2; do
  OMP_NUM_THREADS=$threads "$venv/bin/python" bench/torch_ref.py "$threads" >"$out/py.$threads"
  e=$(awk '$2 == "matmul1024" {print $3}' "$out/ember.$threads")
  t=$(awk '$2 == "matmul1024" {print $3}' "$out/py.$threads")
  printf '%-22s %8s %12s %12s %8s  %s\n' matmul1024 "$threads" "$e" "$t" \
    "$(awk -v a="$e" -v b="$t" 'BEGIN{printf "%.2fx", b/a}')" GFLOP/s
done
echo
bench/python.sh
echo
bench/io.sh
