// The one elementwise kernel: a grid-stride loop over the linear indices of N same-shaped
// operands, each turned into per-operand byte offsets by the OffsetCalculator, and a functor that
// reads and writes the elements there. The op code is a runtime switch inside the functor (uniform
// across a warp), so each functor is compiled once per dtype, not once per op: about 25 kernels
// for every unary, binary, comparison, where, fill, masked_fill, conversion and activation
// gradient (compile time is CI time).
#include "ember/cuda/kernels/elementwise.cuh"
#include "ember/cuda/shared/half_bits.h"

namespace ember::cuda {
namespace {

// Calls f(T{}) with T the compute type of `dtype` (bool, uint8, int32, int64, float, double).
template <typename F>
void visit_compute(DType dtype, const F& f) {
  switch (dtype) {
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    default: return;  // the registrations refuse the storage-only dtypes first
  }
}

// NB: without sin, cos and tan (elementwise_trig.cu) and the special functions (elementwise_special.cu).
template <typename T>
struct UnaryFn {
  UnaryOp op;
  UnaryArgs a;
  __device__ void operator()(char* const (&p)[2]) const { store<T>(p[0], unary_op<T, false>(op, load<T>(p[1]), a)); }
};

// ---- The dense fast path of unary and binary ops on floats: when every operand is contiguous (or,
// for an input, one value broadcast) and 16-byte aligned, each thread reads and writes 16 bytes of
// each operand at once (4 floats, 2 doubles), and the remainder goes through the generic kernel.
// NB: floating types only: an integer division must report a zero divisor, which BinaryFn does.

template <int N>
bool is_dense(const ElementwiseArgs<N>& args, int64_t itemsize) {
  if (args.calc.dims != 1) return false;
  for (int k = 0; k < N; ++k) {
    const int64_t stride = args.calc.strides[0][k];
    if (stride != itemsize && !(k > 0 && stride == 0)) return false;  // the output is never broadcast
    if (reinterpret_cast<uintptr_t>(args.data[k]) % 16 != 0) return false;
  }
  return true;
}

// The operands from element `from` on (a dense args' tail).
template <int N>
ElementwiseArgs<N> tail_of(const ElementwiseArgs<N>& args, int64_t from) {
  ElementwiseArgs<N> tail = args;
  tail.numel = args.numel - from;
  for (int k = 0; k < N; ++k) tail.data[k] += from * args.calc.strides[0][k];
  return tail;
}

template <typename T>
struct alignas(16) Pack {
  static constexpr int kSize = 16 / sizeof(T);
  T v[kSize];
};

// Pack i of an operand of byte stride `stride` (its element size, or 0: one value for all).
template <typename T>
__device__ __forceinline__ Pack<T> load_pack(const char* base, int64_t stride, int64_t i) {
  if (stride != 0) return reinterpret_cast<const Pack<T>*>(base)[i];
  Pack<T> p;
  const T x = load<T>(base);
#pragma unroll
  for (int k = 0; k < Pack<T>::kSize; ++k) p.v[k] = x;
  return p;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) unary_packed_kernel(const ElementwiseArgs<2> args, int64_t packs,
                                                                 UnaryOp op, UnaryArgs a) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < packs; i += step) {
    const Pack<T> x = load_pack<T>(args.data[1], args.calc.strides[0][1], i);
    Pack<T> r;
#pragma unroll
    for (int k = 0; k < Pack<T>::kSize; ++k) r.v[k] = unary_op<T, false>(op, x.v[k], a);
    reinterpret_cast<Pack<T>*>(args.data[0])[i] = r;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) binary_packed_kernel(const ElementwiseArgs<3> args, int64_t packs,
                                                                  BinaryOp op) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < packs; i += step) {
    const Pack<T> x = load_pack<T>(args.data[1], args.calc.strides[0][1], i);
    const Pack<T> y = load_pack<T>(args.data[2], args.calc.strides[0][2], i);
    Pack<T> r;
#pragma unroll
    for (int k = 0; k < Pack<T>::kSize; ++k) r.v[k] = binary_op<T, false>(op, x.v[k], y.v[k]);
    reinterpret_cast<Pack<T>*>(args.data[0])[i] = r;
  }
}

template <typename T>
struct ActivationBackwardFn {
  UnaryOp op;
  T a, b;  // activation_backward_op's
  __device__ void operator()(char* const (&p)[3]) const {
    store<T>(p[0], activation_backward_op<T>(op, load<T>(p[1]), load<T>(p[2]), a, b));
  }
};

template <typename T>
struct BinaryFn {
  BinaryOp op;
  bool divides;  // an integer division op: a zero divisor is reported, not computed
  int64_t* slot;
  __device__ void operator()(char* const (&p)[3]) const {
    const T x = load<T>(p[1]), y = load<T>(p[2]);
    if constexpr (!std::is_floating_point_v<T> && !std::is_same_v<T, bool>) {
      if (divides && y == T(0)) {
        report_error(slot, KernelError::DivisionByZero, 0);
        store<T>(p[0], T(0));
        return;
      }
    }
    store<T>(p[0], binary_op<T, false>(op, x, y));
  }
};

// a + alpha * b rounded once, as the CPU's add_scaled kernel (fma: the compiler's contraction aside)
template <typename T>
struct AddScaledFn {
  T alpha;
  __device__ void operator()(char* const (&p)[3]) const {
    store<T>(p[0], fma(alpha, load<T>(p[2]), load<T>(p[1])));
  }
};

template <typename T>
struct CompareFn {
  CompareOp op;
  __device__ void operator()(char* const (&p)[3]) const { store<bool>(p[0], compare_op<T>(op, load<T>(p[1]), load<T>(p[2]))); }
};

// Copies `size` bytes (1, 2, 4, 8 or 16: complex128) from `from` to `to`.
__device__ __forceinline__ void move_item(char* to, const char* from, int size) {
  switch (size) {
    case 1: store<uint8_t>(to, load<uint8_t>(from)); break;
    case 2: store<uint16_t>(to, load<uint16_t>(from)); break;
    case 4: store<uint32_t>(to, load<uint32_t>(from)); break;
    case 8: store<uint64_t>(to, load<uint64_t>(from)); break;
    default: move_16_bytes(to, from); break;
  }
}
// Stores the element whose bits are `bits` (scalar_bits: for 16-byte complex128 the real part's,
// the imaginary part 0).
__device__ __forceinline__ void put_bits(char* to, uint64_t bits, int size) {
  switch (size) {
    case 1: store<uint8_t>(to, static_cast<uint8_t>(bits)); break;
    case 2: store<uint16_t>(to, static_cast<uint16_t>(bits)); break;
    case 4: store<uint32_t>(to, static_cast<uint32_t>(bits)); break;
    case 8: store<uint64_t>(to, bits); break;
    default:
      store<uint64_t>(to, bits);
      store<uint64_t>(to + 8, 0);
      break;
  }
}

struct WhereFn {
  int size;
  __device__ void operator()(char* const (&p)[4]) const { move_item(p[0], load<uint8_t>(p[1]) ? p[2] : p[3], size); }
};

struct FillFn {
  int size;
  uint64_t bits;
  __device__ void operator()(char* const (&p)[1]) const { put_bits(p[0], bits, size); }
};

struct MaskedFillFn {
  int size;
  uint64_t bits;
  __device__ void operator()(char* const (&p)[3]) const {
    if (load<uint8_t>(p[2]))
      put_bits(p[0], bits, size);
    else
      move_item(p[0], p[1], size);
  }
};

// A value read from any dtype: integers exactly as int64, floating types as double, complex ones
// as two doubles (f the real part, im the imaginary part; 0 for every other dtype).
struct AnyValue {
  bool floating;
  int64_t i;
  double f;
  double im;
};

__device__ __forceinline__ AnyValue read_any(const char* p, DType t) {
  switch (t) {
    case DType::Bool: return {false, load<uint8_t>(p) != 0, 0, 0};
    case DType::UInt8: return {false, load<uint8_t>(p), 0, 0};
    case DType::Int8: return {false, load<int8_t>(p), 0, 0};
    case DType::Int16: return {false, load<int16_t>(p), 0, 0};
    case DType::Int32: return {false, load<int32_t>(p), 0, 0};
    case DType::Int64: return {false, load<int64_t>(p), 0, 0};
    case DType::Float16: return {true, 0, half_bits_to_float(load<uint16_t>(p)), 0};
    case DType::BFloat16: return {true, 0, bfloat16_bits_to_float(load<uint16_t>(p)), 0};
    case DType::Float32: return {true, 0, load<float>(p), 0};
    case DType::Float64: return {true, 0, load<double>(p), 0};
    case DType::Complex64: return {true, 0, load<float>(p), load<float>(p + 4)};
    case DType::Complex128: return {true, 0, load<double>(p), load<double>(p + 8)};
  }
  return {false, 0, 0, 0};
}

// NB: a float goes to an 8- or 16-bit integer through int64, as convert() on the host does (CUDA's
// own conversion saturates: -1.0 would give uint8 0 here and 255 on the CPU).
template <typename I>
__device__ __forceinline__ I to_integer(const AnyValue& v) {
  if (!v.floating) return static_cast<I>(v.i);
  if constexpr (sizeof(I) < 4) return static_cast<I>(static_cast<long long>(v.f));
  return static_cast<I>(v.f);
}

// convert<To>(from) of core/dtype.h: float16 and bfloat16 through float, bool as != 0 (either part
// of a complex value), integers to floats directly (not through double, which would round twice),
// a complex value to a real dtype as its real part, a real value to a complex dtype with
// imaginary part 0.
__device__ __forceinline__ void write_any(char* p, DType t, const AnyValue& v) {
  switch (t) {
    case DType::Bool: store<uint8_t>(p, v.floating ? v.f != 0.0 || v.im != 0.0 : v.i != 0); break;
    case DType::UInt8: store<uint8_t>(p, to_integer<uint8_t>(v)); break;
    case DType::Int8: store<int8_t>(p, to_integer<int8_t>(v)); break;
    case DType::Int16: store<int16_t>(p, to_integer<int16_t>(v)); break;
    case DType::Int32: store<int32_t>(p, to_integer<int32_t>(v)); break;
    case DType::Int64: store<int64_t>(p, to_integer<int64_t>(v)); break;
    case DType::Float16:
      store<uint16_t>(p, float_to_half_bits(v.floating ? static_cast<float>(v.f) : static_cast<float>(v.i)));
      break;
    case DType::BFloat16:
      store<uint16_t>(p, float_to_bfloat16_bits(v.floating ? static_cast<float>(v.f) : static_cast<float>(v.i)));
      break;
    case DType::Float32: store<float>(p, v.floating ? static_cast<float>(v.f) : static_cast<float>(v.i)); break;
    case DType::Float64: store<double>(p, v.floating ? v.f : static_cast<double>(v.i)); break;
    case DType::Complex64:
      store<float>(p, v.floating ? static_cast<float>(v.f) : static_cast<float>(v.i));
      store<float>(p + 4, static_cast<float>(v.im));
      break;
    case DType::Complex128:
      store<double>(p, v.floating ? v.f : static_cast<double>(v.i));
      store<double>(p + 8, v.im);
      break;
  }
}

struct ConvertFn {
  DType to, from;
  __device__ void operator()(char* const (&p)[2]) const { write_any(p[0], to, read_any(p[1], from)); }
};

}  // namespace

void launch_unary(const ElementwiseArgs<2>& args, DType dtype, UnaryOp op, const UnaryArgs& a, cudaStream_t stream) {
  if (is_trig(op) && (dtype == DType::Float32 || dtype == DType::Float64)) return launch_trig(args, dtype, op, stream);
  if (is_special(op) && (dtype == DType::Float32 || dtype == DType::Float64))
    return launch_special(args, dtype, op, a, stream);
  visit_compute(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const int64_t packs = args.numel / Pack<T>::kSize;
      if (packs > 0 && is_dense(args, sizeof(T))) {
        unary_packed_kernel<T><<<blocks_for(packs), kThreads, 0, stream>>>(args, packs, op, a);
        check_launch("unary");
        return run_elementwise(tail_of(args, packs * Pack<T>::kSize), UnaryFn<T>{op, a}, stream, "unary");
      }
    }
    run_elementwise(args, UnaryFn<T>{op, a}, stream, "unary");
  });
}

void launch_activation_backward(const ElementwiseArgs<3>& args, DType dtype, UnaryOp op, double a, double b,
                                cudaStream_t stream) {
  if (dtype == DType::Float32)
    run_elementwise(args, ActivationBackwardFn<float>{op, static_cast<float>(a), static_cast<float>(b)}, stream,
                    "activation_backward");
  else
    run_elementwise(args, ActivationBackwardFn<double>{op, a, b}, stream, "activation_backward");
}

void launch_binary(const ElementwiseArgs<3>& args, DType dtype, BinaryOp op, int64_t* error_slot,
                   cudaStream_t stream) {
  if (is_special(op) && (dtype == DType::Float32 || dtype == DType::Float64))
    return launch_binary_special(args, dtype, op, stream);
  visit_compute(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const int64_t packs = args.numel / Pack<T>::kSize;
      if (packs > 0 && is_dense(args, sizeof(T))) {
        binary_packed_kernel<T><<<blocks_for(packs), kThreads, 0, stream>>>(args, packs, op);
        check_launch("binary");
        return run_elementwise(tail_of(args, packs * Pack<T>::kSize), BinaryFn<T>{op, false, error_slot}, stream,
                               "binary");
      }
    }
    run_elementwise(args, BinaryFn<T>{op, binary_divides(op), error_slot}, stream, "binary");
  });
}

void launch_add_scaled(const ElementwiseArgs<3>& args, DType dtype, double alpha, cudaStream_t stream) {
  if (dtype == DType::Float64)
    run_elementwise(args, AddScaledFn<double>{alpha}, stream, "add");
  else
    run_elementwise(args, AddScaledFn<float>{static_cast<float>(alpha)}, stream, "add");
}

void launch_compare(const ElementwiseArgs<3>& args, DType dtype, CompareOp op, cudaStream_t stream) {
  visit_compute(dtype, [&](auto tag) {
    using T = decltype(tag);
    run_elementwise(args, CompareFn<T>{op}, stream, "compare");
  });
}

void launch_where(const ElementwiseArgs<4>& args, int itemsize, cudaStream_t stream) {
  run_elementwise(args, WhereFn{itemsize}, stream, "where");
}

void launch_convert(const ElementwiseArgs<2>& args, DType to, DType from, cudaStream_t stream) {
  run_elementwise(args, ConvertFn{to, from}, stream, "copy");
}

void launch_fill(const ElementwiseArgs<1>& args, int itemsize, uint64_t bits, cudaStream_t stream) {
  run_elementwise(args, FillFn{itemsize, bits}, stream, "fill");
}

void launch_masked_fill(const ElementwiseArgs<3>& args, int itemsize, uint64_t bits, cudaStream_t stream) {
  run_elementwise(args, MaskedFillFn{itemsize, bits}, stream, "masked_fill");
}

}  // namespace ember::cuda
