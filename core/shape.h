#pragma once
// Sizes and strides: DimVector stores them, IntArrayRef passes them (from {2, 3}, a vector, or a
// DimVector) without copying. Helpers for element counts, contiguous strides, broadcasting and
// dimension wrapping live here so every op checks shapes the same way.
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "ember/core/small_vector.h"

namespace ember {

using DimVector = SmallVector<int64_t, 6>;

/// A non-owning view of int64 values; valid only as long as what it was built from.
class IntArrayRef {
 public:
  constexpr IntArrayRef() = default;
  constexpr IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
  IntArrayRef(const int64_t& one) : data_(&one), size_(1) {}  // NOLINT: one dim
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  // NB: valid for the full-expression that creates the list, as for every argument.
  IntArrayRef(std::initializer_list<int64_t> list) : data_(list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  IntArrayRef(const DimVector& v) : data_(v.data()), size_(v.size()) {}

  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t back() const { return data_[size_ - 1]; }
  DimVector vec() const { return DimVector(begin(), end()); }
  std::vector<int64_t> std_vec() const { return std::vector<int64_t>(begin(), end()); }
  bool equals(IntArrayRef other) const;

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

inline bool operator==(IntArrayRef a, IntArrayRef b) { return a.equals(b); }
inline bool operator!=(IntArrayRef a, IntArrayRef b) { return !a.equals(b); }

/// Prints "[2, 3]".
std::ostream& operator<<(std::ostream& os, IntArrayRef dims);
std::ostream& operator<<(std::ostream& os, const DimVector& dims);
std::ostream& operator<<(std::ostream& os, const std::vector<int64_t>& dims);
std::string shape_str(IntArrayRef dims);

/// Product of the sizes; checks for negative sizes and int64 overflow.
int64_t numel_of(IntArrayRef sizes);
/// Row-major strides for `sizes`.
DimVector contiguous_strides(IntArrayRef sizes);
/// True when sizes/strides describe a dense row-major layout.
bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides);
/// The broadcast of two shapes, NumPy rules; `op` names the caller in the error.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);
/// Wraps a possibly negative dim into [0, ndim); `op` names the caller in the error.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

}  // namespace ember
