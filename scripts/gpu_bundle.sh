#!/usr/bin/env bash
# Packs what the GPU suites need into one folder that runs on a GPU machine which has the NVIDIA
# driver, CUDA 13 (cuBLAS) and cuDNN 9 but none of Ember's build dependencies (a rented GPU box
# with PyTorch on it, say): the *_CUDA C++ suites, the Python package built for that machine's
# Python, and the libraries they load that are neither glibc's nor the driver's nor CUDA's large
# ones (which the GPU machine has: run.sh finds them there).
#
#   scripts/gpu_bundle.sh build out/gpu python3.12   # here, after `make build` (EMBER_CUDA on)
#   tar -xJf gpu.tar.xz && gpu/run.sh /path/to/checkout   # there; prints and saves its logs
#
# What run.sh runs: test_cuda (the *_CUDA suites), test_distributed's nccl tests, tutorial 1 with
# --device cuda (when the data set was here), tests/python/test_cuda.py, optionally the C++ suite
# under compute-sanitizer (MEMCHECK=1), and bench/gpu_bench.py for Ember and the machine's torch.
#
# PYTHON is the interpreter of the GPU machine's version (its torch gives bench/gpu_bench.py the
# PyTorch rows); the package is built with it against BUILD's library (EMBER_PREBUILT_DIR).
set -euo pipefail
build=$(realpath "${1:?usage: gpu_bundle.sh BUILD_DIR OUT_DIR [PYTHON]}")
out=${2:?usage: gpu_bundle.sh BUILD_DIR OUT_DIR [PYTHON]}
python=${3:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)

ldd "$build/libember.so.0" | grep -q libcudart || {
  echo "gpu_bundle: $build/libember.so.0 has no CUDA backend (configure with -DEMBER_CUDA=ON)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/py"
out=$(realpath "$out")

cp "$build/tests/test_cuda" "$build/tests/test_distributed" "$build/tutorials/fashion_mnist/fashion_mnist" "$out/bin/"
strip --strip-unneeded "$out/bin/"*
# Tutorial 1's GPU check trains on Fashion-MNIST (scripts/install_deps.sh data), when it is here.
data=/usr/share/datasets/fashion-mnist
[ -d "$data" ] && cp -r "$data" "$out/data"
"$python" -m pip install -q --no-deps --no-compile --target "$out/py" "$root" \
  -C cmake.define.EMBER_PREBUILT_DIR="$build"
# The package holds libember beside its extension; the C++ suite loads that same copy.
strip --strip-unneeded "$out/py/ember/"*.so*

# Every library the binaries load, less the C and C++ runtimes (the GPU machine's are as new or
# newer, and its torch needs them), the driver's and CUDA's big ones (cuDNN, NCCL, and cuBLAS,
# which Ember opens itself); the CUDA runtime travels (it must match the build's).
skip='^(libc|libm|libdl|librt|libpthread|ld-linux.*|libstdc\+\+|libgcc_s|libz|libcuda|libcudnn.*|libcublas.*|libnccl|linux-vdso)\.so'
for so in $(ldd "$out/bin/"* "$out/py/ember/"*.so* | awk '/=> \// {print $3}' | sort -u); do
  name=$(basename "$so")
  [[ $name =~ $skip ]] || [[ -e "$out/py/ember/$name" ]] || cp -L "$so" "$out/lib/"
done

cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the GPU suites of this bundle: CHECKOUT is the Ember source tree (tests/python, bench/).
# Logs go to $LOGS (default: the bundle's folder); MEMCHECK=1 adds a compute-sanitizer pass.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(realpath "${1:?usage: run.sh CHECKOUT}")
logs=${LOGS:-$here}
# cuBLAS, cuDNN and NCCL from the machine: the CUDA install, else a Python environment's nvidia wheels.
dirs=""
for name in libcublas.so.13 libcudnn.so.9 libnccl.so.2; do
  found=$(find /usr/local/cuda*/ /usr/lib /opt /usr/local/lib -name "$name" 2>/dev/null | head -1)
  [ -n "$found" ] && dirs="$dirs:$(dirname "$found")" || echo "run.sh: $name not found" >&2
done
# NB: only Ember's commands see the bundle's libraries: torch loads its own CUDA runtime.
ember_env=(env LD_LIBRARY_PATH="$here/py/ember:$here/lib$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
           EMBER_REQUIRE_CUDA=1 PYTHONPATH="$here/py")
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0
timeout 180 "${ember_env[@]}" "$here/bin/test_cuda" --gtest_brief=1 2>&1 | tee "$logs/test_cuda.log" || status=1
timeout 120 "${ember_env[@]}" "$here/bin/test_distributed" --gtest_brief=1 --gtest_filter='Nccl*' 2>&1 |
  tee "$logs/test_nccl.log" || status=1
if [ -d "$here/data" ]; then  # where tutorials/fashion_mnist/run_test.sh looks for it
  mkdir -p /usr/share/datasets && [ -e /usr/share/datasets/fashion-mnist ] ||
    ln -s "$here/data" /usr/share/datasets/fashion-mnist
  timeout 60 "${ember_env[@]}" "$checkout/tutorials/fashion_mnist/run_test.sh" cuda \
    "$here/bin/fashion_mnist" "$here/tutorial_cuda" 2>&1 | tee "$logs/tutorial_cuda.log" || status=1
fi
(cd "$checkout" && timeout 100 "${ember_env[@]}" python3 -m pytest -q -p no:cacheprovider tests/python/test_cuda.py) 2>&1 \
  | tee "$logs/pytest_cuda.log" || status=1
# MEMCHECK=1: the C++ suite again under compute-sanitizer (out-of-bounds and misaligned accesses;
# not API errors: the allocator test runs out of memory on purpose).
if [ "${MEMCHECK:-0}" = 1 ]; then
  timeout 240 "${ember_env[@]}" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 --print-limit 20 \
    "$here/bin/test_cuda" --gtest_brief=1 2>&1 | tee "$logs/memcheck.log" || status=1
fi
timeout 45 "${ember_env[@]}" python3 "$checkout/bench/gpu_bench.py" ember 2>&1 | tee "$logs/gpu_bench.ember.log" || status=1
timeout 100 python3 "$checkout/bench/gpu_bench.py" torch 2>&1 | tee "$logs/gpu_bench.torch.log" || status=1
exit $status
RUN
chmod +x "$out/run.sh"
# Compressed, as what travels to a GPU machine may be limited (libdnnl alone is 38 MB).
tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")"
du -sh "$out" "$out.tar.xz"
