#include "ember/core/cpu/matmul_onednn.h"

#include <omp.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ember/core/cpu/onednn.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/cpu/scratch.h"
#include "ember/core/error.h"

namespace ember::cpu {
namespace {

using dnnl::memory;

// Rows (or columns) per thread's block, in multiples of this, as gemm() splits float products.
constexpr int64_t kSplitUnit = 16;
constexpr int64_t kThreadWork = int64_t{1} << 16;
// Primitives kept before the cache starts over (a model has a few dozen product shapes).
constexpr size_t kMaxPrimitives = 512;

memory::data_type dnnl_type(DType dtype) {
  return dtype == DType::BFloat16 ? memory::data_type::bf16 : memory::data_type::f32;
}

// One block's product: its shape, the operands' strides (in elements), whether it adds onto c and
// whether it adds a bias row decide the primitive.
using Key = std::tuple<DType, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool, bool>;

// A block's primitive and the scratch memory one execution of it needs.
struct Primitive {
  dnnl::matmul matmul;
  memory::desc scratchpad;
};

// The primitive for a block, made once; null where oneDNN has no optimised kernel for it (its
// reference kernel is orders of magnitude slower than widening).
std::shared_ptr<const Primitive> primitive_for(const Key& key) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Primitive>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= kMaxPrimitives) cache.clear();
  const auto [dtype, m, k, n, ars, acs, brs, bcs, ldc, accumulate, bias] = key;
  std::shared_ptr<const Primitive> p;
  try {
    const memory::data_type t = dnnl_type(dtype);
    memory::desc a({m, k}, t, memory::dims{ars, acs}), b({k, n}, t, memory::dims{brs, bcs}),
        c({m, n}, t, memory::dims{ldc, 1});
    // NB: the scratchpad comes from the caller, per execution. The library's own is one buffer per
    // primitive, and the blocks of a product run the same primitive on several threads at once:
    // the bfloat16 kernels (AVX512_BF16) accumulate there, and at 2 threads a product came out
    // wrong by more than its own magnitude, differently each time.
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (accumulate) {
      dnnl::post_ops sum;
      sum.append_sum(1.0f);
      attr.set_post_ops(sum);
    }
    const dnnl::matmul::desc desc =
        bias ? dnnl::matmul::desc(a, b, memory::desc({1, n}, t, memory::dims{n, 1}), c) : dnnl::matmul::desc(a, b, c);
    dnnl::matmul::primitive_desc pd(desc, attr, onednn_engine());
    if (std::string(pd.impl_info_str()).rfind("ref", 0) != 0)
      p = std::make_shared<const Primitive>(Primitive{dnnl::matmul(pd), pd.scratchpad_desc()});
  } catch (const dnnl::error&) {
  }
  cache.emplace(key, p);
  return p;
}

// Strides as oneDNN reads them: a size-1 dim's stride is free (PyTorch leaves it arbitrary), so
// it is made consistent with the other dim's.
std::pair<int64_t, int64_t> dense_strides(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (rows <= 1) rs = std::max<int64_t>(cols, 1) * std::max<int64_t>(cs, 1);
  if (cols <= 1) cs = 1;
  return {rs, cs};
}

}  // namespace

bool onednn_matmul_native(DType dtype) {
  if (dtype == DType::Float32) return true;
  if (dtype != DType::BFloat16) return false;
  return onednn_native_bf16();
}

bool onednn_matmul(DType dtype, const MatrixRef<void>& a, const MatrixRef<void>& b, void* c, int64_t ldc,
                   bool accumulate, const void* bias) {
  if (!onednn_matmul_native(dtype)) return false;
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || n == 0 || k == 0) return false;  // gemm()'s own cases
  const size_t item = itemsize(dtype);
  auto [ars, acs] = dense_strides(m, k, a.row_stride, a.col_stride);
  auto [brs, bcs] = dense_strides(k, n, b.row_stride, b.col_stride);
  // Split the larger of m and n, as gemm() does; every block's primitive exists before any runs,
  // so a product is all oneDNN's or all widened.
  const bool split_rows = m >= n;
  const int64_t dim = split_rows ? m : n, units = (dim + kSplitUnit - 1) / kSplitUnit;
  const int64_t unit_work = kSplitUnit * (split_rows ? n : m) * k;
  const int64_t per_thread = std::max<int64_t>(1, (kThreadWork + unit_work - 1) / unit_work);
  const int64_t threads = std::min<int64_t>(available_threads(), std::max<int64_t>(1, units / per_thread));
  const int64_t block = (units + threads - 1) / threads * kSplitUnit;
  const int64_t blocks = (dim + block - 1) / block, last = dim - (blocks - 1) * block;
  auto key_of = [&](int64_t len) {
    return split_rows ? Key{dtype, len, k, n, ars, acs, brs, bcs, ldc, accumulate, bias != nullptr}
                      : Key{dtype, m, k, len, ars, acs, brs, bcs, ldc, accumulate, bias != nullptr};
  };
  auto full = primitive_for(key_of(std::min(block, dim)));
  auto tail = last != block ? primitive_for(key_of(last)) : full;
  if (!full || !tail) return false;
  const auto* ap = static_cast<const char*>(a.data);
  const auto* bp = static_cast<const char*>(b.data);
  auto* cp = static_cast<char*>(c);
  parallel_for(0, blocks, 1, [&](int64_t lo, int64_t hi) {
    // NB: Debian builds oneDNN on OpenMP; one thread per block, as onednn_sgemm in gemm.cpp.
    const int omp_threads = omp_get_max_threads();
    omp_set_num_threads(1);
    dnnl::stream stream(onednn_engine());
    std::vector<Tensor> pads;  // alive until the stream is done with them
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t begin = t * block, len = std::min(block, dim - begin);
      const auto& prim = len == block ? full : tail;
      const memory::data_type dt = dnnl_type(dtype);
      const int64_t bm = split_rows ? len : m, bn = split_rows ? n : len;
      memory am({{bm, k}, dt, memory::dims{ars, acs}}, onednn_engine(),
                const_cast<char*>(ap + (split_rows ? begin * ars : 0) * static_cast<int64_t>(item)));
      memory bmem({{k, bn}, dt, memory::dims{brs, bcs}}, onednn_engine(),
                  const_cast<char*>(bp + (split_rows ? 0 : begin * bcs) * static_cast<int64_t>(item)));
      memory cm({{bm, bn}, dt, memory::dims{ldc, 1}}, onednn_engine(),
                cp + (split_rows ? begin * ldc : begin) * static_cast<int64_t>(item));
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bmem}, {DNNL_ARG_DST, cm}};
      if (bias)
        args.emplace(DNNL_ARG_BIAS, memory({{1, bn}, dt, memory::dims{bn, 1}}, onednn_engine(),
                                           const_cast<char*>(static_cast<const char*>(bias)) +
                                               (split_rows ? 0 : begin) * static_cast<int64_t>(item)));
      if (const size_t bytes = prim->scratchpad.get_size(); bytes > 0) {  // float32's kernels need none
        pads.push_back(scratch<uint8_t>(static_cast<int64_t>(bytes)));
        args.emplace(DNNL_ARG_SCRATCHPAD, memory(prim->scratchpad, onednn_engine(), pads.back().data_ptr()));
      }
      prim->matmul.execute(stream, args);
    }
    stream.wait();
    omp_set_num_threads(omp_threads);
  });
  return true;
}

}  // namespace ember::cpu
