// Strided copy with dtype conversion, and fill.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ember/core/copy.h"
#include "ember/core/cpu/loops.h"

namespace ember::cpu {
namespace {

void cpu_copy(const Tensor& dst, const Tensor& src) {
  EMBER_CHECK(dst.device().is_cpu() && src.device().is_cpu(), "copy: cpu kernel got ", dst.device(),
              " and ", src.device());
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    std::memmove(dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  visit_dtype(dst.dtype(), [&]<typename To>(type_tag<To>) {
    visit_dtype(src.dtype(), [&]<typename From>(type_tag<From>) {
      for_each_strided<2>({&dst, &src}, [](const std::array<char*, 2>& p,
                                           const std::array<int64_t, 2>& s, int64_t n) {
        char* o = p[0];
        const char* x = p[1];
        for (int64_t i = 0; i < n; ++i, o += s[0], x += s[1]) {
          From v;
          std::memcpy(&v, x, sizeof(From));
          To w;
          if constexpr (std::is_same_v<To, bool> && !is_complex_v<From>)
            w = convert<double>(v) != 0.0;  // NB: not through float32, where 1e-300 is 0
          else
            w = convert<To>(v);
          std::memcpy(o, &w, sizeof(To));
        }
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
