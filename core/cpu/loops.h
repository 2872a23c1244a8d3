#pragma once
// Elementwise iteration for CPU kernels. for_each_strided walks N tensors of one shape (inputs
// already broadcast with expand) in row-major order, coalescing dimensions so a contiguous tensor
// is one flat run, and hands the kernel runs of `n` elements with byte strides. unary_kernel and
// binary_kernel run an Eigen array expression over each run, vectorised when a run is contiguous.
#include <Eigen/Core>
#include <array>

#include "ember/core/cpu/parallel.h"
#include "ember/core/tensor.h"

namespace ember::cpu {

template <typename T>
using VecMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstVecMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using StridedVecMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, 0, Eigen::InnerStride<>>;
template <typename T>
using ConstStridedVecMap =
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>, 0, Eigen::InnerStride<>>;

/// inner(ptrs, byte_strides, n) for every run; tensors must all have the same sizes.
/// `grain` is the element count from which the work is split across threads (0: never).
template <size_t N, typename Inner>
void for_each_strided(const std::array<const Tensor*, N>& ts, const Inner& inner,
                      int64_t grain = kElementwiseGrain) {
  const Tensor& first = *ts[0];
  int64_t numel = first.numel();
  if (numel == 0) return;
  bool dense = true;
  for (size_t k = 0; k < N; ++k) dense = dense && ts[k]->is_contiguous();
  if (dense && (grain == 0 || numel < grain)) {  // the common small case: one flat run
    std::array<char*, N> ptrs;
    std::array<int64_t, N> steps;
    for (size_t k = 0; k < N; ++k) {
      ptrs[k] = static_cast<char*>(ts[k]->data_ptr());
      steps[k] = static_cast<int64_t>(ts[k]->itemsize());
    }
    inner(ptrs, steps, numel);
    return;
  }
  // Coalesced dims, innermost first.
  DimVector sizes;
  std::array<DimVector, N> strides;
  std::array<char*, N> base;
  for (size_t k = 0; k < N; ++k) base[k] = static_cast<char*>(ts[k]->data_ptr());
  for (int64_t d = first.dim() - 1; d >= 0; --d) {
    int64_t size = first.sizes()[d];
    if (size == 1) continue;
    bool merge = !sizes.empty();
    for (size_t k = 0; k < N && merge; ++k) {
      int64_t st = ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->itemsize());
      merge = st == strides[k].back() * sizes.back();
    }
    if (merge) {
      sizes.back() *= size;
      continue;
    }
    sizes.push_back(size);
    for (size_t k = 0; k < N; ++k)
      strides[k].push_back(ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->itemsize()));
  }
  if (sizes.empty()) {  // a single element
    sizes.push_back(1);
    for (size_t k = 0; k < N; ++k) strides[k].push_back(0);
  }
  const size_t nd = sizes.size();
  std::array<int64_t, N> inner_strides;
  for (size_t k = 0; k < N; ++k) inner_strides[k] = strides[k][0];
  const int64_t run = sizes[0];

  auto run_range = [&](int64_t begin, int64_t end) {
    // Position of `begin`: counters for the outer dims and the offset in the innermost run.
    DimVector counter(nd, 0);
    int64_t rem = begin / run;
    for (size_t d = 1; d < nd; ++d) {
      counter[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    int64_t pos = begin % run;
    int64_t idx = begin;
    while (idx < end) {
      std::array<char*, N> ptrs;
      for (size_t k = 0; k < N; ++k) {
        int64_t off = pos * strides[k][0];
        for (size_t d = 1; d < nd; ++d) off += counter[d] * strides[k][d];
        ptrs[k] = base[k] + off;
      }
      int64_t n = std::min(run - pos, end - idx);
      inner(ptrs, inner_strides, n);
      idx += n;
      pos = 0;
      for (size_t d = 1; d < nd; ++d) {
        if (++counter[d] < sizes[d]) break;
        counter[d] = 0;
      }
    }
  };
  if (grain > 0)
    parallel_for(0, numel, grain, run_range);
  else
    run_range(0, numel);
}

/// out = f(a) over same-shaped tensors; f maps an Eigen array expression of In to one of Out.
template <typename In, typename Out, typename F>
void unary_kernel(const Tensor& out, const Tensor& a, const F& f) {
  for_each_strided<2>({&out, &a}, [&](const std::array<char*, 2>& p,
                                      const std::array<int64_t, 2>& s, int64_t n) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    auto* x = reinterpret_cast<const In*>(p[1]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      VecMap<Out>(o, n) = f(ConstVecMap<In>(x, n));
    } else {
      StridedVecMap<Out>(o, n, Eigen::InnerStride<>(s[0] / int64_t{sizeof(Out)})) =
          f(ConstStridedVecMap<In>(x, n, Eigen::InnerStride<>(s[1] / int64_t{sizeof(In)})));
    }
  });
}

/// out = f(a, b) over same-shaped tensors (broadcast inputs carry stride 0); f maps two Eigen
/// array expressions of In to one of Out.
template <typename In, typename Out, typename F>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const F& f) {
  using Arr = Eigen::Array<In, Eigen::Dynamic, 1>;
  for_each_strided<3>({&out, &a, &b}, [&](const std::array<char*, 3>& p,
                                          const std::array<int64_t, 3>& s, int64_t n) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    auto* x = reinterpret_cast<const In*>(p[1]);
    auto* y = reinterpret_cast<const In*>(p[2]);
    constexpr int64_t in_size = sizeof(In);
    if (s[0] == sizeof(Out)) {
      if (s[1] == in_size && s[2] == in_size) {
        VecMap<Out>(o, n) = f(ConstVecMap<In>(x, n), ConstVecMap<In>(y, n));
        return;
      }
      if (s[1] == in_size && s[2] == 0) {
        VecMap<Out>(o, n) = f(ConstVecMap<In>(x, n), Arr::Constant(n, *y));
        return;
      }
      if (s[1] == 0 && s[2] == in_size) {
        VecMap<Out>(o, n) = f(Arr::Constant(n, *x), ConstVecMap<In>(y, n));
        return;
      }
    }
    StridedVecMap<Out>(o, n, Eigen::InnerStride<>(s[0] / int64_t{sizeof(Out)})) =
        f(ConstStridedVecMap<In>(x, n, Eigen::InnerStride<>(s[1] / in_size)),
          ConstStridedVecMap<In>(y, n, Eigen::InnerStride<>(s[2] / in_size)));
  });
}

}  // namespace ember::cpu
