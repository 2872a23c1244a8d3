// Indexing kernels: index_select, gather, scatter_add, index_add, masked_fill.
//
// Copies move elements by size only (a float32 and an int32 move alike), so one instantiation
// per element size serves every dtype. Indices are checked serially before any parallel loop: an
// a bad index is reported once, before any task runs. The general paths view each tensor without the
// indexed dim ("positions") and walk the positions with for_each_strided, looping over the
// indexed dim inside; contiguous index_select and index_add move whole rows instead.
#include <cstdlib>
#include <cstring>

#include "ember/core/cpu/loops.h"
#include "ember/core/factory.h"
#include "ember/core/kernels/index.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

/// f(type_tag<U>) with U a plain type of `size` bytes: the element type of a plain copy.
template <typename F>
void visit_itemsize(size_t size, F&& f) {
  switch (size) {
    case 1: return f(type_tag<uint8_t>{});
    case 2: return f(type_tag<uint16_t>{});
    case 4: return f(type_tag<uint32_t>{});
    case 8: return f(type_tag<uint64_t>{});
    case 16: return f(type_tag<Bytes16>{});  // complex128
  }
  EMBER_CHECK(false, "index: no plain copy for ", size, "-byte elements");
}

template <typename F>
void visit_index(DType t, F&& f) {
  if (t == kInt32) return f(type_tag<int32_t>{});
  return f(type_tag<int64_t>{});
}

template <typename T>
inline T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

[[noreturn]] void out_of_range(int64_t value, int64_t size, int64_t dim, const char* op) {
  throw IndexError(detail::str(op, ": index ", value, " is out of range for dimension ", dim,
                               " with size ", size));
}

template <typename I>
void check_bounds(const I* idx, int64_t n, int64_t size, int64_t dim, const char* op) {
  for (int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || idx[i] >= size) [[unlikely]]
      out_of_range(idx[i], size, dim, op);
}

// Every entry of index (any layout) in [0, size).
template <typename I>
void check_bounds(const Tensor& index, int64_t size, int64_t dim, const char* op) {
  if (index.is_contiguous()) return check_bounds(index.data_ptr<I>(), index.numel(), size, dim, op);
  for_each_strided<1>({&index}, [&](const std::array<char*, 1>& p, const std::array<int64_t, 1>& s,
                                    int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      I v = load<I>(p[0] + i * s[0]);
      if (v < 0 || v >= size) [[unlikely]]
        out_of_range(v, size, dim, op);
    }
  }, /*grain=*/0);
}

// t's layout without `dim`, with the sizes of `shape` (t's rank) elsewhere: the positions view.
Tensor drop_dim(const Tensor& t, IntArrayRef shape, int64_t dim) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == dim) continue;
    sizes.push_back(shape[static_cast<size_t>(d)]);
    strides.push_back(t.stride(d));
  }
  return make_tensor(t.storage(), t.dtype(), sizes, strides, t.storage_offset());
}

// body(ptrs, byte strides, n, j0, j1) for runs of n positions and indexed entries [j0, j1).
// Parallel over positions; over j instead when positions are few and `split_j` (only for ops
// where different j never write the same element).
template <size_t N, typename Body>
void indexed_loop(const std::array<const Tensor*, N>& positions, int64_t len, bool split_j,
                  const Body& body) {
  int64_t count = positions[0]->numel();
  auto all = [&](int64_t j0, int64_t j1) {
    return [&body, j0, j1](const std::array<char*, N>& p, const std::array<int64_t, N>& s,
                           int64_t n) { body(p, s, n, j0, j1); };
  };
  if (count * len < kElementwiseGrain) {
    for_each_strided<N>(positions, all(0, len), 0);
  } else if (split_j && count < len) {
    parallel_for(0, len, std::max<int64_t>(kElementwiseGrain / count, 1), [&](int64_t j0, int64_t j1) {
      for_each_strided<N>(positions, all(j0, j1), 0);
    });
  } else {
    for_each_strided<N>(positions, all(0, len), std::max<int64_t>(kElementwiseGrain / len, 1));
  }
}

// f(j, k) for j in [j0, j1) and k in [0, m); j innermost when `j_inner` (the indexed dim is the
// faster-moving one in memory), so the loop walks memory in order either way.
template <typename F>
inline void loop2(int64_t j0, int64_t j1, int64_t m, bool j_inner, const F& f) {
  if (j_inner) {
    for (int64_t k = 0; k < m; ++k)
      for (int64_t j = j0; j < j1; ++j) f(j, k);
  } else {
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t k = 0; k < m; ++k) f(j, k);
  }
}

inline bool dim_is_inner(int64_t dim_step, int64_t run_step) {
  return std::abs(dim_step) < std::abs(run_step);
}

void outer_inner(IntArrayRef sizes, int64_t dim, int64_t& outer, int64_t& inner) {
  outer = inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= sizes[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < sizes.size(); ++d) inner *= sizes[d];
}

void cpu_index_select(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index,
                      const char* op) {
  const int64_t size = src.size(dim), n = index.numel();
  visit_index(index.dtype(), [&]<typename I>(type_tag<I>) {
    const I* idx = index.data_ptr<I>();
    check_bounds(idx, n, size, dim, op);
    if (out.numel() == 0) return;
    visit_itemsize(out.itemsize(), [&]<typename T>(type_tag<T>) {
      if (src.is_contiguous()) {  // rows of `inner` elements, copied whole
        int64_t outer, inner;
        outer_inner(src.sizes(), dim, outer, inner);
        const char* s = static_cast<const char*>(src.data_ptr());
        char* o = static_cast<char*>(out.data_ptr());
        const size_t row = static_cast<size_t>(inner) * sizeof(T);
        parallel_for(0, outer * n, (kElementwiseGrain + inner - 1) / inner, [&](int64_t b, int64_t e) {
          int64_t k = b / n, i = b % n;
          for (int64_t r = b; r < e; ++r) {
            const char* from = s + (k * size + static_cast<int64_t>(idx[i])) * static_cast<int64_t>(row);
            if (inner == 1)
              std::memcpy(o + r * static_cast<int64_t>(sizeof(T)), from, sizeof(T));
            else
              std::memcpy(o + r * static_cast<int64_t>(row), from, row);
            if (++i == n) {
              i = 0;
              ++k;
            }
          }
        });
        return;
      }
      Tensor out_p = drop_dim(out, out.sizes(), dim), src_p = drop_dim(src, out.sizes(), dim);
      const int64_t ostep = out.stride(dim) * int64_t{sizeof(T)};
      const int64_t sstep = src.stride(dim) * int64_t{sizeof(T)};
      indexed_loop<2>({&out_p, &src_p}, n, true,
                      [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t m,
                          int64_t j0, int64_t j1) {
        loop2(j0, j1, m, dim_is_inner(ostep, st[0]), [&](int64_t j, int64_t k) {
          std::memcpy(p[0] + j * ostep + k * st[0],
                      p[1] + static_cast<int64_t>(idx[j]) * sstep + k * st[1], sizeof(T));
        });
      });
    });
  });
}

void cpu_gather(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index) {
  const int64_t len = index.size(dim);
  visit_index(index.dtype(), [&]<typename I>(type_tag<I>) {
    check_bounds<I>(index, src.size(dim), dim, "gather");
    visit_itemsize(out.itemsize(), [&]<typename T>(type_tag<T>) {
      Tensor out_p = drop_dim(out, index.sizes(), dim), src_p = drop_dim(src, index.sizes(), dim),
             idx_p = drop_dim(index, index.sizes(), dim);
      const int64_t ostep = out.stride(dim) * int64_t{sizeof(T)};
      const int64_t sstep = src.stride(dim) * int64_t{sizeof(T)};
      const int64_t istep = index.stride(dim) * int64_t{sizeof(I)};
      indexed_loop<3>({&out_p, &src_p, &idx_p}, len, true,
                      [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t m,
                          int64_t j0, int64_t j1) {
        loop2(j0, j1, m, dim_is_inner(ostep, st[0]), [&](int64_t j, int64_t k) {
          int64_t v = load<I>(p[2] + j * istep + k * st[2]);
          std::memcpy(p[0] + j * ostep + k * st[0], p[1] + k * st[1] + v * sstep, sizeof(T));
        });
      });
    });
  });
}

template <typename T>
inline void accumulate(T* o, T x) {
  if constexpr (std::is_same_v<T, bool>)
    *o = *o || x;
  else
    *o += x;
}

void cpu_scatter_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t len = index.size(dim);
  visit_index(index.dtype(), [&]<typename I>(type_tag<I>) {
    check_bounds<I>(index, out.size(dim), dim, "scatter_add");
    visit_compute_dtype(out.dtype(), "scatter_add", [&]<typename T>(type_tag<T>) {
      Tensor out_p = drop_dim(out, index.sizes(), dim), src_p = drop_dim(src, index.sizes(), dim),
             idx_p = drop_dim(index, index.sizes(), dim);
      const int64_t ostep = out.stride(dim) * int64_t{sizeof(T)};
      const int64_t sstep = src.stride(dim) * int64_t{sizeof(T)};
      const int64_t istep = index.stride(dim) * int64_t{sizeof(I)};
      // NB: never split over j: two entries of one position may target the same element.
      indexed_loop<3>({&out_p, &src_p, &idx_p}, len, false,
                      [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t m,
                          int64_t j0, int64_t j1) {
        loop2(j0, j1, m, dim_is_inner(sstep, st[1]), [&](int64_t j, int64_t k) {
          int64_t v = load<I>(p[2] + j * istep + k * st[2]);
          accumulate(reinterpret_cast<T*>(p[0] + k * st[0] + v * ostep),
                     *reinterpret_cast<const T*>(p[1] + j * sstep + k * st[1]));
        });
      });
    });
  });
}

template <typename T>
inline void add_row(T* o, const T* s, int64_t m) {
  if constexpr (std::is_same_v<T, bool>) {
    for (int64_t c = 0; c < m; ++c) o[c] = o[c] || s[c];
  } else {
    VecMap<T>(o, m) += ConstVecMap<T>(s, m);
  }
}

void cpu_index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t size = out.size(dim), n = index.numel();
  visit_index(index.dtype(), [&]<typename I>(type_tag<I>) {
    const I* idx = index.data_ptr<I>();
    check_bounds(idx, n, size, dim, "index_add");
    if (out.numel() == 0) return;
    visit_compute_dtype(out.dtype(), "index_add", [&]<typename T>(type_tag<T>) {
      if (out.is_contiguous() && src.is_contiguous()) {
        // Work items are (outer position, column range): disjoint in out whatever the indices,
        // so duplicate indices accumulate without races. Rows are added with Eigen.
        int64_t outer, inner;
        outer_inner(out.sizes(), dim, outer, inner);
        T* o = out.data_ptr<T>();
        const T* s = src.data_ptr<T>();
        int64_t grain = std::max<int64_t>((kElementwiseGrain + n - 1) / n, 16);
        parallel_for(0, outer * inner, grain, [&](int64_t b, int64_t e) {
          for (int64_t pos = b; pos < e;) {
            int64_t k = pos / inner, c0 = pos % inner;
            int64_t m = std::min(inner - c0, e - pos);
            for (int64_t i = 0; i < n; ++i)
              add_row(o + (k * size + static_cast<int64_t>(idx[i])) * inner + c0,
                      s + (k * n + i) * inner + c0, m);
            pos += m;
          }
        });
        return;
      }
      Tensor out_p = drop_dim(out, out.sizes(), dim), src_p = drop_dim(src, out.sizes(), dim);
      const int64_t ostep = out.stride(dim) * int64_t{sizeof(T)};
      const int64_t sstep = src.stride(dim) * int64_t{sizeof(T)};
      indexed_loop<2>({&out_p, &src_p}, n, false,
                      [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t m,
                          int64_t j0, int64_t j1) {
        loop2(j0, j1, m, dim_is_inner(sstep, st[1]), [&](int64_t j, int64_t k) {
          accumulate(reinterpret_cast<T*>(p[0] + static_cast<int64_t>(idx[j]) * ostep + k * st[0]),
                     *reinterpret_cast<const T*>(p[1] + j * sstep + k * st[1]));
        });
      });
    });
  });
}

void cpu_masked_fill(const Tensor& out, const Tensor& src, const Tensor& mask, const Scalar& value) {
  visit_dtype(out.dtype(), [&]<typename T>(type_tag<T>) {
    T v;
    if constexpr (std::is_same_v<T, bool>)
      v = value.to<double>() != 0;
    else
      v = value.is_floating() ? convert<T>(value.to<double>()) : convert<T>(value.to<int64_t>());
    for_each_strided<3>({&out, &src, &mask}, [&](const std::array<char*, 3>& p,
                                                 const std::array<int64_t, 3>& s, int64_t n) {
      if (s[0] == sizeof(T) && s[1] == sizeof(T) && s[2] == 1) {
        T* o = reinterpret_cast<T*>(p[0]);
        const T* x = reinterpret_cast<const T*>(p[1]);
        const uint8_t* m = reinterpret_cast<const uint8_t*>(p[2]);
        for (int64_t i = 0; i < n; ++i) o[i] = m[i] ? v : x[i];
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        const char* from = p[2][i * s[2]] ? reinterpret_cast<const char*>(&v) : p[1] + i * s[1];
        std::memcpy(p[0] + i * s[0], from, sizeof(T));
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(index_select_stub, DeviceType::CPU, &cpu_index_select);
EMBER_REGISTER_KERNEL(gather_stub, DeviceType::CPU, &cpu_gather);
EMBER_REGISTER_KERNEL(scatter_add_stub, DeviceType::CPU, (widened<&cpu_scatter_add, 0>));
EMBER_REGISTER_KERNEL(index_add_stub, DeviceType::CPU, (widened<&cpu_index_add, 0>));
EMBER_REGISTER_KERNEL(masked_fill_stub, DeviceType::CPU, &cpu_masked_fill);

}  // namespace ember::cpu
