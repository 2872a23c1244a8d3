#pragma once
// A (height, width) pair of sizes, as the 2-D convolution and pooling ops and their kernels take
// them; one integer means both: Size2(2), Size2{1, 2}.
#include <cstdint>
#include <ostream>

namespace ember {

struct Size2 {
  int64_t h = 0, w = 0;
  Size2() = default;
  Size2(int64_t both) : h(both), w(both) {}  // NOLINT: implicit, as PyTorch takes stride=2
  Size2(int64_t h_, int64_t w_) : h(h_), w(w_) {}
  bool operator==(const Size2&) const = default;
};
/// Prints "[h, w]".
std::ostream& operator<<(std::ostream& os, const Size2& s);

}  // namespace ember
