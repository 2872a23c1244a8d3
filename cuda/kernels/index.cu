// Indexing along a dim: index_select, gather, scatter_add, index_add, and the bounds check that
// runs before each. Every kernel is the elementwise one (elementwise.cuh) with a functor that
// adds the indexed position's offset: the indexed dim of the other operand is given stride 0, so
// the calculator yields the offset of everything but that dim. Copies move bytes by item size (one
// kernel for every dtype); the adds use atomics, so duplicate indices accumulate.
#include "ember/cuda/kernels/elementwise.cuh"

namespace ember::cuda {
namespace {

template <typename I>
struct CheckIndexFn {
  int64_t size;
  int64_t* slot;
  __device__ void operator()(char* const (&p)[1]) const {
    const int64_t v = load<I>(p[0]);
    if (v < 0 || v >= size) report_error(slot, KernelError::IndexOutOfRange, v);
  }
};

__device__ __forceinline__ int64_t load_index(const char* p, bool is_int32) {
  return is_int32 ? static_cast<int64_t>(load<int32_t>(p)) : load<int64_t>(p);
}

__device__ __forceinline__ void move_bytes(char* to, const char* from, int size) {
  switch (size) {
    case 1: store<uint8_t>(to, load<uint8_t>(from)); break;
    case 2: store<uint16_t>(to, load<uint16_t>(from)); break;
    case 4: store<uint32_t>(to, load<uint32_t>(from)); break;
    case 8: store<uint64_t>(to, load<uint64_t>(from)); break;
    default: move_16_bytes(to, from); break;  // complex128
  }
}

// The elementwise kernel hands the functor pointers, not the linear index that index_select and
// index_add need for their position j along the dim: those two run a kernel of their own.
__global__ void __launch_bounds__(kThreads) index_select_kernel(const ElementwiseArgs<2> args, int size,
                                                                 const char* index, bool is_int32, int64_t n,
                                                                 int64_t inner, int64_t src_step) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < args.numel; i += step) {
    int64_t off[2];
    args.calc.offsets(i, off);
    const int64_t j = (i / inner) % n;
    const int64_t v = load_index(index + j * (is_int32 ? 4 : 8), is_int32);
    move_bytes(args.data[0] + off[0], args.data[1] + off[1] + v * src_step, size);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) index_add_kernel(const ElementwiseArgs<2> args, const char* index,
                                                              bool is_int32, int64_t n, int64_t inner,
                                                              int64_t out_step) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < args.numel; i += step) {
    int64_t off[2];
    args.calc.offsets(i, off);
    const int64_t j = (i / inner) % n;
    const int64_t v = load_index(index + j * (is_int32 ? 4 : 8), is_int32);
    atomic_add(reinterpret_cast<T*>(args.data[1] + off[1] + v * out_step), load<T>(args.data[0] + off[0]));
  }
}

struct GatherFn {
  int size;
  bool is_int32;
  int64_t src_step;
  __device__ void operator()(char* const (&p)[3]) const {
    move_bytes(p[0], p[2] + load_index(p[1], is_int32) * src_step, size);
  }
};

template <typename T>
struct ScatterAddFn {
  bool is_int32;
  int64_t out_step;
  __device__ void operator()(char* const (&p)[3]) const {
    atomic_add(reinterpret_cast<T*>(p[0] + load_index(p[1], is_int32) * out_step), load<T>(p[2]));
  }
};

template <typename F>
void visit_atomic(DType dtype, const F& f) {
  switch (dtype) {
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float32: return f(float{});
    default: return f(double{});  // the registrations allow compute dtypes only
  }
}

}  // namespace

void launch_check_indices(const ElementwiseArgs<1>& index, DType index_dtype, int64_t size, int64_t* error_slot,
                          cudaStream_t stream) {
  if (index_dtype == DType::Int32)
    run_elementwise(index, CheckIndexFn<int32_t>{size, error_slot}, stream, "index check");
  else
    run_elementwise(index, CheckIndexFn<int64_t>{size, error_slot}, stream, "index check");
}

void launch_index_select(const ElementwiseArgs<2>& args, int itemsize, const void* index, DType index_dtype,
                         int64_t n, int64_t inner, int64_t src_step, cudaStream_t stream) {
  if (args.numel == 0) return;
  index_select_kernel<<<blocks_for(args.numel), kThreads, 0, stream>>>(
      args, itemsize, static_cast<const char*>(index), index_dtype == DType::Int32, n, inner, src_step);
  check_launch("index_select");
}

void launch_gather(const ElementwiseArgs<3>& args, int itemsize, DType index_dtype, int64_t src_step,
                   cudaStream_t stream) {
  run_elementwise(args, GatherFn{itemsize, index_dtype == DType::Int32, src_step}, stream, "gather");
}

void launch_scatter_add(const ElementwiseArgs<3>& args, DType dtype, DType index_dtype, int64_t out_step,
                        cudaStream_t stream) {
  visit_atomic(dtype, [&](auto tag) {
    using T = decltype(tag);
    run_elementwise(args, ScatterAddFn<T>{index_dtype == DType::Int32, out_step}, stream, "scatter_add");
  });
}

void launch_index_add(const ElementwiseArgs<2>& args, DType dtype, const void* index, DType index_dtype,
                      int64_t n, int64_t inner, int64_t out_step, cudaStream_t stream) {
  if (args.numel == 0) return;
  visit_atomic(dtype, [&](auto tag) {
    using T = decltype(tag);
    index_add_kernel<T><<<blocks_for(args.numel), kThreads, 0, stream>>>(
        args, static_cast<const char*>(index), index_dtype == DType::Int32, n, inner, out_step);
    check_launch("index_add");
  });
}

}  // namespace ember::cuda
