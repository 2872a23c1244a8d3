#!/usr/bin/env bash
# Ember from Python against PyTorch from PyPI, same code, same run: per-op autograd overhead on tiny
# tensors, the 1024x1024 matmul and the 784-256-128-10 MLP training step (batch 64 and 512, SGD and
# Adam), at 1 and 2 threads. Ember runs from .venv (`make python`), PyTorch from .venv-bench.
# Asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-bench
if [[ ! -x $venv/bin/python ]]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -c "import torch" 2>/dev/null || "$venv/bin/pip" install -q torch numpy
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "Python: Ember (.venv) against PyTorch $("$venv/bin/python" -c 'import torch; print(torch.__version__)')"
printf '%-24s %8s %12s %12s %8s  %s\n' workload threads ember torch ratio unit
for threads in 1 2; do
  OMP_NUM_THREADS=$threads .venv/bin/python bench/python_bench.py ember "$threads" >"$out/ember.$threads"
  OMP_NUM_THREADS=$threads "$venv/bin/python" bench/python_bench.py torch "$threads" >"$out/torch.$threads"
  while read -r name value unit; do
    ref=$(awk -v n="$name" '$1 == n {print $2}' "$out/torch.$threads")
    # Ratios read "Ember's cost / PyTorch's": times as they are, throughput inverted.
    if [[ $unit == GFLOP/s ]]; then ratio=$(awk -v a="$value" -v b="$ref" 'BEGIN{printf "%.2fx", b/a}')
    else ratio=$(awk -v a="$value" -v b="$ref" 'BEGIN{printf "%.2fx", a/b}'); fi
    printf '%-24s %8s %12s %12s %8s  %s\n' "$name" "$threads" "$value" "$ref" "$ratio" "$unit"
  done <"$out/ember.$threads"
done
echo "ratio = Ember time / PyTorch time (for GFLOP/s: PyTorch rate / Ember rate); below 1 is faster"
