// Strided copy with dtype conversion, and fill.
// NB: GCC 12 flags Eigen's AVX-512 register transposes (transpose.h) as reading an uninitialised
// value (its _mm512_undefined_* placeholders): a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "ember/core/copy.h"
#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/transpose.h"

namespace ember::cpu {
namespace {

// Contiguous float32 <-> bfloat16 / float16, the conversions every widened kernel makes (core/kernels/
// widen.h): branch-free loops the compiler vectorises (bfloat16) or F16C's (float16), with the same
// round-to-nearest-even and NaN results as the scalar BFloat16 and Half conversions.
void bf16_to_float(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u = static_cast<uint32_t>(in[i]) << 16;
    std::memcpy(out + i, &u, 4);
  }
}
void float_to_bf16(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, in + i, 4);
    const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    out[i] = static_cast<uint16_t>(nan ? (((u >> 16) & 0x8000u) | 0x7fc0u) : rounded);  // NB: Eigen's quiet NaN
  }
}
void half_to_float(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(in[i]));
}
void float_to_half(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; i < n; ++i) out[i] = Eigen::numext::bit_cast<uint16_t>(Eigen::half(in[i]));
}

// The 16-bit float conversions above over any layouts, split over threads: each contiguous run at
// once, a strided one element by element; false when the pair of dtypes is another.
bool convert_16bit(const Tensor& dst, const Tensor& src) {
  const DType d = dst.dtype(), s = src.dtype();
  void (*f)(const char*, char*, int64_t) = nullptr;
  int64_t in_size = 2, out_size = 4;
  if (s == kBFloat16 && d == kFloat32) {
    f = [](const char* i, char* o, int64_t n) { bf16_to_float(reinterpret_cast<const uint16_t*>(i), reinterpret_cast<float*>(o), n); };
  } else if (s == kFloat16 && d == kFloat32) {
    f = [](const char* i, char* o, int64_t n) { half_to_float(reinterpret_cast<const uint16_t*>(i), reinterpret_cast<float*>(o), n); };
  } else if (s == kFloat32 && d == kBFloat16) {
    f = [](const char* i, char* o, int64_t n) { float_to_bf16(reinterpret_cast<const float*>(i), reinterpret_cast<uint16_t*>(o), n); };
    in_size = 4, out_size = 2;
  } else if (s == kFloat32 && d == kFloat16) {
    f = [](const char* i, char* o, int64_t n) { float_to_half(reinterpret_cast<const float*>(i), reinterpret_cast<uint16_t*>(o), n); };
    in_size = 4, out_size = 2;
  } else {
    return false;
  }
  for_each_strided<2>({&dst, &src}, [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& st,
                                        int64_t n) {
    if (st[0] == out_size && st[1] == in_size) return f(p[1], p[0], n);
    for (int64_t i = 0; i < n; ++i) f(p[1] + i * st[1], p[0] + i * st[0], 1);  // NB: the scalar tails
  });
  return true;
}

// A transposing copy: dst's innermost dim runs along a dim of src with a large stride, while src
// is contiguous along another (x.t().contiguous(), NCHW from NHWC). Walked element by element in
// dst's order, every read is a new cache line; here each pair of those dims is copied in tiles
// (core/cpu/transpose.h; 1.7-2.1 ns an element before, 2.2x PyTorch's copy). False, with nothing
// written, where the layout is another.
bool copy_transposed(const Tensor& dst, const Tensor& src) {
  const int64_t item = static_cast<int64_t>(dst.itemsize());
  if (dst.dtype() != src.dtype() || !dst.is_contiguous() || dst.numel() < kTransposeTile * kTransposeTile ||
      (item != 2 && item != 4 && item != 8))
    return false;
  // dims of size > 1, innermost first, with byte strides
  DimVector sizes, ds, ss;
  for (int64_t d = dst.dim() - 1; d >= 0; --d)
    if (dst.size(d) > 1) {
      sizes.push_back(dst.size(d));
      ds.push_back(dst.stride(d) * item);
      ss.push_back(src.stride(d) * item);
    }
  if (sizes.size() < 2 || ss[0] == item) return false;
  size_t q = 1;
  while (q < sizes.size() && ss[q] != item) ++q;
  if (q == sizes.size()) return false;
  // The other dims, walked by a flat index over their sizes.
  DimVector outer_sizes, outer_ds, outer_ss;
  for (size_t d = 1; d < sizes.size(); ++d)
    if (d != q) {
      outer_sizes.push_back(sizes[d]);
      outer_ds.push_back(ds[d]);
      outer_ss.push_back(ss[d]);
    }
  int64_t outer = 1;
  for (int64_t n : outer_sizes) outer *= n;
  const int64_t rows = sizes[q], cols = sizes[0], row_tiles = (rows + kTransposeTile - 1) / kTransposeTile;
  char* dbase = static_cast<char*>(dst.data_ptr());
  const char* sbase = static_cast<const char*>(src.data_ptr());
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / (kTransposeTile * cols));
  parallel_for(0, outer * row_tiles, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      int64_t rem = t / row_tiles, doff = 0, soff = 0;
      for (size_t d = 0; d < outer_sizes.size(); ++d) {
        const int64_t idx = rem % outer_sizes[d];
        rem /= outer_sizes[d];
        doff += idx * outer_ds[d];
        soff += idx * outer_ss[d];
      }
      const int64_t i0 = t % row_tiles * kTransposeTile, i1 = std::min(rows, i0 + kTransposeTile);
      auto tile = [&]<typename T>(T*) {
        transpose_rows(reinterpret_cast<const T*>(sbase + soff), ss[0] / item, reinterpret_cast<T*>(dbase + doff),
                       ds[q] / item, i0, i1, cols);
      };
      if (item == 4)
        tile(static_cast<uint32_t*>(nullptr));
      else if (item == 8)
        tile(static_cast<uint64_t*>(nullptr));
      else
        tile(static_cast<uint16_t*>(nullptr));
    }
  });
  return true;
}

void cpu_copy(const Tensor& dst, const Tensor& src) {
  EMBER_CHECK(dst.device().is_cpu() && src.device().is_cpu(), "copy: cpu kernel got ", dst.device(),
              " and ", src.device());
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    std::memmove(dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  if (convert_16bit(dst, src) || copy_transposed(dst, src)) return;
  visit_dtype(dst.dtype(), [&]<typename To>(type_tag<To>) {
    visit_dtype(src.dtype(), [&]<typename From>(type_tag<From>) {
      auto one = [](char* o, const char* x) {
        From v;
        std::memcpy(&v, x, sizeof(From));
        To w;
        if constexpr (std::is_same_v<To, bool> && !is_complex_v<From>)
          w = convert<double>(v) != 0.0;  // NB: not through float32, where 1e-300 is 0
        else
          w = convert<To>(v);
        std::memcpy(o, &w, sizeof(To));
      };
      for_each_strided<2>({&dst, &src}, [&](const std::array<char*, 2>& p,
                                            const std::array<int64_t, 2>& s, int64_t n) {
        char* o = p[0];
        const char* x = p[1];
        // NB: unit-stride runs (a broadcast bias written into addmm's result, a slice made contiguous)
        // as a block copy or a loop of constant strides the compiler vectorises: the general loop
        // below took 0.6 ns an element, 7x PyTorch's copy.
        if (s[0] == static_cast<int64_t>(sizeof(To)) && s[1] == static_cast<int64_t>(sizeof(From))) {
          if constexpr (std::is_same_v<To, From>) {
            std::memcpy(o, x, static_cast<size_t>(n) * sizeof(To));
          } else {
            for (int64_t i = 0; i < n; ++i) one(o + i * sizeof(To), x + i * sizeof(From));
          }
          return;
        }
        for (int64_t i = 0; i < n; ++i, o += s[0], x += s[1]) one(o, x);
      });
    });
  });
}

void cpu_fill(const Tensor& dst, const Scalar& value) {
  visit_dtype(dst.dtype(), [&]<typename T>(type_tag<T>) {
    T v = std::is_same_v<T, bool> ? static_cast<T>(value.to<double>() != 0)
                                  : (value.is_floating() ? convert<T>(value.to<double>())
                                                         : convert<T>(value.to<int64_t>()));
    if (dst.is_contiguous()) {  // every gradient that starts from zeros comes through here
      T* p = static_cast<T*>(dst.data_ptr());
      if (value.to<double>() == 0.0 && !(value.is_floating() && std::signbit(value.to<double>())))
        std::memset(static_cast<void*>(p), 0, dst.nbytes());
      else
        std::fill_n(p, dst.numel(), v);
      return;
    }
    for_each_strided<1>({&dst}, [&](const std::array<char*, 1>& p,
                                    const std::array<int64_t, 1>& s, int64_t n) {
      char* o = p[0];
      for (int64_t i = 0; i < n; ++i, o += s[0]) std::memcpy(o, &v, sizeof(T));
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(copy_stub, DeviceType::CPU, &cpu_copy);
EMBER_REGISTER_KERNEL(fill_stub, DeviceType::CPU, &cpu_fill);

}  // namespace ember::cpu
