#!/usr/bin/env bash
# `make bench`: every workload in Ember and in PyTorch from PyPI (installed here into .venv-bench;
# its wheel also ships the libtorch the C++ side links), from C++ (cpp_bench.cpp) and from Python
# (python_bench.py) at 1 and 2 threads, and the checkpoint save/load (io_bench.cpp, io_bench.py),
# all in one run; then summary.py prints the tables, markdown-ready, from the result files in
# $BUILD_DIR/bench. Ember's Python side runs from .venv (`make python`). Asserts nothing.
#   bench/run.sh            # everything (a few minutes on 2 cores, and about 12 more for the sweep)
#   bench/run.sh cpp        # only the listed parts (cpp python sweep io contended dist), then the tables of all
# An AVX2-only machine, approximated on an AVX-512 one (the C++ parts; the tables then name the
# settings): a build folder configured with -DEMBER_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=haswell, and
#   BUILD_DIR=build-avx2 BENCH_MARCH=haswell DNNL_MAX_CPU_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 \
#     ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 bench/run.sh cpp contended
# Where ember.cuda.is_available(), GPU rows follow (bench/gpu_bench.py, Ember and PyTorch on cuda:0).
# "contended" runs the C++ training steps again with 1 and then 2 CPU-bound processes competing
# for the cores, each library at its default thread setting (needs the cpp part's programs).
# "dist" runs bench/dist_bench.cpp under ember-run: allreduce, all-gather and reduce-scatter against
# raw Gloo, DDP training steps per second, and FSDP against DDP (step time, peak memory per rank), at
# 1 rank (2 threads), 2 ranks (1 thread each) and 4 ranks (1 thread each, two to a core).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh data
build=${BUILD_DIR:-build}
venv=.venv-bench
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/python" -c "import torch, numpy" 2>/dev/null || "$venv/bin/pip" install -q torch numpy
torch=$("$venv/bin/python" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
res=$build/bench
(($#)) || rm -rf "$res"
mkdir -p "$res"
parts=" ${*:-cpp python sweep io contended dist} "
flags=(-std=c++20 -O2 -march="${BENCH_MARCH:-native}")
# shellcheck disable=SC2054  # -Wl,-rpath,DIR is one word
ember=(-I "$build/include" -I "$build/generated/include" -L"$build" -lember -Wl,-rpath,"$PWD/$build")
say() { echo "bench: $*" >&2; }

if [[ $parts == *" cpp "* ]]; then
  say "building cpp_bench against Ember and against libtorch"
  g++ "${flags[@]}" bench/cpp_bench.cpp -o "$res/ember-cpp" "${ember[@]}" -lz
  g++ "${flags[@]}" -DBENCH_TORCH -I "$torch/include" -I "$torch/include/torch/csrc/api/include" \
    bench/cpp_bench.cpp -o "$res/torch-cpp" -L"$torch/lib" -ltorch_cpu -lc10 -lz \
    -Wl,-rpath,"$torch/lib"
fi
if [[ $parts == *" cpp "* ]]; then
  # the Python GPT as a program, which cpp_bench trains from C++ (gpt_step_b16_adamw_program)
  .venv/bin/python bench/python_bench.py ember-gpt-program "$res/gpt_program.ember"
  EMBER_BENCH_GPT_PROGRAM=$(cd "$res" && pwd)/gpt_program.ember
  export EMBER_BENCH_GPT_PROGRAM
fi
for threads in 1 2; do
  export OMP_NUM_THREADS=$threads
  if [[ $parts == *" cpp "* ]]; then
    say "C++, $threads thread(s)"
    "$res/ember-cpp" "$threads" >"$res/ember-cpp.$threads"
    "$res/torch-cpp" "$threads" >"$res/torch-cpp.$threads"
  fi
  if [[ $parts == *" python "* ]]; then
    say "Python, $threads thread(s)"
    .venv/bin/python bench/python_bench.py ember "$threads" >"$res/ember-py.$threads"
    "$venv/bin/python" bench/python_bench.py torch "$threads" >"$res/torch-py.$threads"
  fi
done
if [[ $parts == *" sweep "* ]]; then
  for threads in 1 2; do
    say "convolution shape sweep, $threads thread(s)"
    OMP_NUM_THREADS=$threads .venv/bin/python bench/conv_sweep.py ember "$threads" >"$res/ember-py.sweep$threads"
    OMP_NUM_THREADS=$threads "$venv/bin/python" bench/conv_sweep.py torch "$threads" >"$res/torch-py.sweep$threads"
  done
fi
if [[ $parts == *" io "* ]]; then
  say "checkpoints: ${BENCH_IO_STATE:-50 5000000} (tensors, float32 elements each), 2 threads"
  export OMP_NUM_THREADS=2
  scratch=$(mktemp -d -p "$PWD/$build")  # on the build's disk, not a tmpfs
  trap 'rm -rf "$scratch"' EXIT
  read -r -a state <<<"${BENCH_IO_STATE:-}"
  g++ "${flags[@]}" bench/io_bench.cpp -o "$res/io_bench" "${ember[@]}"
  "$res/io_bench" "$scratch" "${state[@]}" >"$res/ember-cpp.io"
  "$venv/bin/python" bench/io_bench.py "$scratch" "${state[@]}" >"$res/torch-py.io"
fi
if [[ $parts == *" dist "* ]]; then
  say "distributed: allreduce against raw Gloo, DDP steps at 1, 2 and 4 ranks, FSDP against DDP"
  gloo_shared=$(sed -n 's/^EMBER_GLOO_SHARED_STORE:INTERNAL=//p' "$build/CMakeCache.txt")
  g++ "${flags[@]}" -DEMBER_GLOO_SHARED_STORE="${gloo_shared:-0}" bench/dist_bench.cpp -o "$res/dist_bench" \
    "${ember[@]}" -lgloo
  rm -f "$res/ember-cpp.dist"
  for world in 1 2 4; do
    store=$(mktemp -d)
    OMP_NUM_THREADS=$(((2 + world - 1) / world)) "$build/tools/run/ember-run" --nproc "$world" "$res/dist_bench" "$store" |
      sed -n 's/^\[rank0\]: //p' >>"$res/ember-cpp.dist"
    rm -rf "$store"
  done
fi
if [[ $parts == *" contended "* ]]; then
  unset OMP_NUM_THREADS  # each library's default
  for busy in 0 1 2; do
    say "contended: C++ training steps with $busy busy process(es)"
    pids=()
    for ((i = 0; i < busy; i++)); do
      (while :; do :; done) &
      pids+=($!)
    done
    "$res/ember-cpp" contended >"$res/ember-cpp.contended$busy"
    "$res/torch-cpp" contended >"$res/torch-cpp.contended$busy"
    ((busy == 0)) || { kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true; }
  done
  # The same quiet steps on one thread: one core is what fair scheduling leaves two threads among
  # two busy processes on two cores, so this bounds the contended step from below.
  OMP_NUM_THREADS=1 "$res/ember-cpp" contended >"$res/ember-cpp.contended0t1"
fi
# GPU rows: only where this build has the CUDA backend and the machine a GPU (bench/gpu_bench.py).
if .venv/bin/python -c "import ember, sys; sys.exit(0 if ember.cuda.is_available() else 1)" 2>/dev/null; then
  say "GPU: Ember and PyTorch on cuda:0"
  .venv/bin/python bench/gpu_bench.py ember >"$res/ember-py.gpu"
  "$venv/bin/python" bench/gpu_bench.py torch >"$res/torch-py.gpu" || true
else
  say "no CUDA device (or no CUDA backend in this build): no GPU rows"
fi
"$venv/bin/python" bench/summary.py "$res"
