#include "ember/core/shape.h"

#include <algorithm>
#include <sstream>

#include "ember/core/error.h"

namespace ember {

bool IntArrayRef::equals(IntArrayRef other) const {
  return size_ == other.size_ && std::equal(begin(), end(), other.begin());
}

std::ostream& operator<<(std::ostream& os, IntArrayRef dims) {
  os << '[';
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
  return os << ']';
}
std::ostream& operator<<(std::ostream& os, const DimVector& dims) { return os << IntArrayRef(dims); }
std::ostream& operator<<(std::ostream& os, const std::vector<int64_t>& dims) {
  return os << IntArrayRef(dims);
}

std::string shape_str(IntArrayRef dims) {
  std::ostringstream os;
  os << dims;
  return os.str();
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  // NB: the contiguous strides multiply the sizes with zeros counted as ones, so [0, 2^40, 2^40]
  // (no elements) would still overflow them: that product is checked too.
  int64_t span = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK_VALUE(s >= 0, "negative dimension in shape ", sizes);
    EMBER_CHECK_VALUE(!__builtin_mul_overflow(n, s, &n) &&
                          !__builtin_mul_overflow(span, std::max<int64_t>(s, 1), &span),
                      "shape ", sizes, " has more elements than int64 can count");
  }
  return n;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides) {
  // NB: a tensor without elements is contiguous whatever its strides, as in PyTorch (NumPy gives an
  // empty array zero strides, and from_numpy of one was not)
  for (int64_t s : sizes)
    if (s == 0) return true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK_VALUE(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b,
                      " cannot be broadcast together");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  EMBER_CHECK_INDEX(dim >= lo && dim <= hi, op, ": dimension ", dim,
                    " out of range (expected to be in [", lo, ", ", hi, "])");
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

}  // namespace ember
