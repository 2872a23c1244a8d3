#pragma once
// A (depth, height, width) triple of sizes, as the 3-D convolution and pooling layers take them;
// one integer means all three: Size3(2), Size3{1, 2, 2}.
#include <cstdint>
#include <ostream>

namespace ember {

struct Size3 {
  int64_t d = 0, h = 0, w = 0;
  Size3() = default;
  Size3(int64_t all) : d(all), h(all), w(all) {}  // NOLINT: implicit, as PyTorch takes stride=2
  Size3(int64_t d_, int64_t h_, int64_t w_) : d(d_), h(h_), w(w_) {}
  int64_t operator[](int i) const { return i == 0 ? d : i == 1 ? h : w; }
  int64_t product() const { return d * h * w; }
  bool operator==(const Size3&) const = default;
};
/// Prints "[d, h, w]".
inline std::ostream& operator<<(std::ostream& os, const Size3& s) {
  return os << '[' << s.d << ", " << s.h << ", " << s.w << ']';
}

}  // namespace ember
