#!/usr/bin/env bash
# Proves the count of tutorials/adding_an_op.md: an elementwise op with a kernel of its own (a
# throwaway `cube`) is added by editing exactly three files (its table entry with its `test`, its
# forward and backward, its math on one value, which is its CPU and CUDA kernel); the generator
# then gives it its C++
# declaration, Tensor method, op code, Python bindings and re-export, and its op database entries,
# through which the C++ and Python tests reach it with no test edited; every edited or generated
# file that names it, and the C++ op database test, compiles (-fsyntax-only). Runs on a copy of the
# sources; the checkout is not touched.
#   throwaway_op.sh PYTHON CXX SOURCE_DIR BINDINGS_PYTHON [-I<dir> ...]    (-I: Eigen, absl, GoogleTest)
# BINDINGS_PYTHON is an interpreter with pybind11 (the tests' .venv); without one the bindings'
# compile is skipped, and says so.
set -euo pipefail
python=$1 cxx=$2 src=$3 bindings_python=$4
shift 4
includes=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

copied=(ember.h core data autograd ops nn optim io jit distributed profiler cuda/shared python/src tests/ops tests/support)
mkdir -p "$work/src/python" "$work/src/tests" "$work/src/cuda" "$work/include"
for d in "${copied[@]}"; do cp -r "$src/$d" "$work/src/$d"; done
ln -s "$work/src" "$work/include/ember"

# ---- the three edits
cat >>"$work/src/ops/ops.toml" <<'TOML'

[[op]]
sig = "cube(Tensor self) -> Tensor"
kernel = "UnaryOp::Cube"
doc = "self ** 3, elementwise (a throwaway op of tests/codegen/throwaway_op.sh)."
test = { ref = "lambda x: x ** 3", domain = [-2, 2], dtypes = "numeric", result = "same" }
TOML
cat >>"$work/src/ops/unary.cpp" <<'CPP'

namespace ember {
namespace {
// d(x^3)/dx = grad * 3 x^2
struct CubeBackward : SavedOneBackward {
  const char* name() const override { return "CubeBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = saved.unpack(this);
    return {g[0] * x * x * 3.0};
  }
};
}  // namespace
Tensor impl_cube(const Tensor& t) { return floating_unary<CubeBackward>(UnaryOp::Cube, t, "cube", false); }
}  // namespace ember
CPP
kernel=$work/src/core/cpu/unary_kernel.cpp  # unedited: it runs the math below for an op code it has no case for
math=$work/src/core/math/elementwise.h
grep -q '^    case UnaryOp::Neg:$' "$math" || { echo "FAIL: no 'case UnaryOp::Neg:' table line in $math"; exit 1; }
sed -i 's|^\( *\)case UnaryOp::Neg:$|\1case UnaryOp::Cube:\n&|' "$math"
sed -i 's|^\( *\)case UnaryOp::Neg: return|\1case UnaryOp::Cube: return static_cast<T>(x * x * x);\n&|' "$math"

# ---- exactly those three files differ from the sources
changed=$(for d in "${copied[@]}"; do diff -rq "$src/$d" "$work/src/$d" || true; done | sed "s|^Files $src/\([^ ]*\) and .*|\1|")
expected=$'core/math/elementwise.h\nops/ops.toml\nops/unary.cpp'
if [[ $(sort <<<"$changed") != "$expected" ]]; then
  echo "FAIL: the edits changed these files instead of the three expected:"; echo "$changed"; exit 1
fi
echo "ok: three files edited: $(tr '\n' ' ' <<<"$changed")"

# ---- the generator gives it everything else
gen=$work/generated
"$python" "$work/src/ops/codegen.py" "$work/src/ops/ops.toml" "$gen"
expect() {  # expect FILE TEXT: the generated FILE holds TEXT
  grep -qF -- "$2" "$gen/$1" || { echo "FAIL: $1 lacks: $2"; exit 1; }
  echo "ok: $1 has $2"
}
expect include/ember/ops/functions.h 'Tensor cube(const Tensor& self);'
expect include/ember/ops/functions.h 'Tensor impl_cube(const Tensor& self);'
expect ops/traced_ops.cpp 'return impl_cube(self);'
expect jit/table_ops.cpp 'add({"cube"'
expect include/ember/core/tensor_methods.inc 'Tensor cube() const;'
expect include/ember/core/kernels/op_codes.h 'case UnaryOp::Cube: return "cube";'
expect ops/tensor_methods.cpp 'Tensor Tensor::cube() const {'
expect python/op_bindings.cpp 'm.def("cube"'
expect python/op_bindings.cpp 'cls.def("cube"'
expect python/ember/_ops.py '"cube",'
expect include/ember/ops/op_db.h '{"cube", {{-2.0, 2.0}}'
expect include/ember/ops/op_db.h 'return cube(x);'
expect python/ember/_op_db.py "OpCase('cube', 'cube', ('cube',), 1, 'cube(x)', 'lambda x: x ** 3',"

# ---- and every file that names it compiles
compile() {  # compile FILE [FLAGS...]
  local file=$1
  shift
  if ! out=$("$cxx" -std=c++20 -fsyntax-only -w -I"$work/include" -I"$gen/include" "${includes[@]}" "$@" \
                  -x c++ "$file" 2>&1); then
    echo "FAIL: $file does not compile:"; echo "$out" | head -40; exit 1
  fi
  echo "ok: ${file#"$work"/} compiles"
}
compile "$work/src/ops/unary.cpp"
compile "$kernel"
printf '#include "ember/core/math/elementwise.h"\nstatic_assert(ember::elementwise::unary_defined(ember::UnaryOp::Cube, false, false));\nfloat f(float x) { return ember::elementwise::unary_op<float>(ember::UnaryOp::Cube, x, {}); }\n' >"$work/cube_math.cpp"
compile "$work/cube_math.cpp"
compile "$gen/ops/tensor_methods.cpp"
compile "$work/src/tests/ops/op_db_test.cpp" -I"$work/src/tests"
if pybind=$("$bindings_python" -m pybind11 --includes 2>/dev/null); then
  # shellcheck disable=SC2086  # two -I flags
  compile "$gen/python/op_bindings.cpp" -I"$work/src/python/src" $pybind
else
  echo "ok (skipped): no pybind11 at $bindings_python to compile the bindings with"
fi
