#include "ember/core/tensor.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "ember/core/copy.h"
#include "ember/core/factory.h"

namespace ember {

// NB: wrap_dim takes dim 0 of a 0-d tensor as valid (ops treat it as a dim of size 1), but it has
// no size to read: refused, as in PyTorch, rather than read past the end.
int64_t Tensor::size(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "size: dimension ", dim, " specified, but the tensor has no dimensions");
  return sizes()[static_cast<size_t>(wrap_dim(dim, this->dim(), "size"))];
}

int64_t Tensor::stride(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "stride: dimension ", dim, " specified, but the tensor has no dimensions");
  return strides()[static_cast<size_t>(wrap_dim(dim, this->dim(), "stride"))];
}

template <typename T>
T Tensor::item() const {
  EMBER_CHECK_VALUE(numel() == 1, "item: a tensor with ", numel(),
                    " elements cannot be converted to a scalar");
  Tensor cpu = device().is_cpu() ? *this : copy_as(*this, dtype(), Device());
  return visit_dtype(dtype(), [&]<typename S>(type_tag<S>) {
    return convert<T>(*static_cast<const S*>(cpu.data_ptr()));
  });
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  Tensor c = copy_as(*this, dtype_of<T>, Device());
  const T* p = static_cast<const T*>(c.data_ptr());
  return std::vector<T>(p, p + numel());
}

#define EMBER_INSTANTIATE(T)                  \
  template T Tensor::item<T>() const;         \
  template std::vector<T> Tensor::to_vector<T>() const;
EMBER_INSTANTIATE(uint8_t)
EMBER_INSTANTIATE(int8_t)
EMBER_INSTANTIATE(int16_t)
EMBER_INSTANTIATE(int32_t)
EMBER_INSTANTIATE(int64_t)
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
EMBER_INSTANTIATE(Half)
EMBER_INSTANTIATE(BFloat16)
EMBER_INSTANTIATE(std::complex<float>)
EMBER_INSTANTIATE(std::complex<double>)
#undef EMBER_INSTANTIATE
template bool Tensor::item<bool>() const;

template <>
std::vector<bool> Tensor::to_vector<bool>() const {
  std::vector<uint8_t> bytes = copy_as(*this, kBool, Device()).to_vector<uint8_t>();
  return std::vector<bool>(bytes.begin(), bytes.end());
}

namespace {

// As PyTorch prints: a tensor of more than kSummaryThreshold elements shows only the first and
// last kEdgeItems entries of each dimension, with "..." between them; elements are read in place
// (a huge tensor is not copied to be printed).
constexpr int64_t kSummaryThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

void print_values(std::ostream& os, const Tensor& tensor) {
  const Tensor t = tensor.device().is_cpu() ? tensor : copy_as(tensor, tensor.dtype(), Device());
  const bool floating = is_floating(t.dtype()), boolean = t.dtype() == kBool;
  const bool complex = is_complex(t.dtype());
  const bool summarize = t.numel() > kSummaryThreshold;
  auto print_real = [&](double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e16) {
      os << static_cast<int64_t>(v) << '.';
    } else if (std::isnan(v)) {
      os << "nan";  // NB: not "-nan" for a NaN with its sign bit set, as PyTorch prints it
    } else {
      std::ostringstream one;
      one << std::setprecision(4) << v;
      os << one.str();
    }
  };
  auto print_one = [&](int64_t offset) {  // offset: in elements from t's data pointer
    if (boolean) {
      os << (t.data_ptr<bool>()[offset] ? "True" : "False");
    } else if (complex) {  // as Python and PyTorch: 1.+2.j, 0.-1.j
      const auto z = visit_dtype(t.dtype(), [&]<typename T>(type_tag<T>) {
        return convert<std::complex<double>>(t.data_ptr<T>()[offset]);
      });
      print_real(z.real());
      os << (std::signbit(z.imag()) && !std::isnan(z.imag()) ? '-' : '+');
      print_real(std::fabs(z.imag()));
      os << 'j';
    } else if (floating) {
      print_real(visit_dtype(t.dtype(), [&]<typename T>(type_tag<T>) {
        return convert<double>(t.data_ptr<T>()[offset]);
      }));
    } else {
      os << visit_dtype(t.dtype(), [&]<typename T>(type_tag<T>) { return convert<int64_t>(t.data_ptr<T>()[offset]); });
    }
  };
  if (t.dim() == 0) {
    print_one(0);
    return;
  }
  // Recursive nesting by dimension; rows of the last dimension on one line.
  auto rec = [&](auto&& self, int64_t dim, int64_t base) -> void {
    const bool last = dim + 1 == t.dim();
    const std::string separator = last ? ", " : ",\n" + std::string(static_cast<size_t>(dim) + 8, ' ');
    const int64_t size = t.size(dim);
    const bool skip = summarize && size > 2 * kEdgeItems;
    os << '[';
    for (int64_t i = 0; i < size; ++i) {
      if (skip && i == kEdgeItems) {
        os << separator << "...";
        i = size - kEdgeItems;
      }
      if (i) os << separator;
      if (last)
        print_one(base + i * t.stride(dim));
      else
        self(self, dim + 1, base + i * t.stride(dim));
    }
    os << ']';
  };
  rec(rec, 0, 0);
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  std::ostringstream os;
  os << "tensor(";
  print_values(os, *this);
  // As PyTorch: the dtypes a literal would give (float32, int64, bool, complex64) go unnamed.
  if (dtype() != kFloat32 && dtype() != kInt64 && dtype() != kBool && dtype() != kComplex64)
    os << ", dtype=ember." << dtype();
  if (!device().is_cpu()) os << ", device='" << device() << "'";
  if (requires_grad()) os << ", requires_grad=True";
  os << ')';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

std::string describe(const Tensor& t) {
  if (!t.defined()) return "undefined tensor";
  return detail::str(t.dtype(), ' ', t.sizes());
}

}  // namespace ember
