#include "ember/core/promotion.h"

#include <optional>

namespace ember {
namespace {

int category(DType t) {
  if (t == kBool) return 0;
  if (is_complex(t)) return 3;
  return is_floating(t) ? 2 : 1;
}

// PyTorch's dtype of a wrapped Python number.
DType number_dtype(const Scalar& s) {
  if (s.is_bool()) return kBool;
  return s.is_floating() ? default_dtype() : kInt64;
}

// `lower` (0-d tensors or numbers) only matters when its category is above `higher`'s. A complex
// `lower` keeps a floating `higher`'s precision (float32 with a complex128 0-d is complex64). NB:
// PyTorch gives float16 and bfloat16 complex32 there, which Ember lacks: complex64 instead.
DType combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return *lower;
  if (!lower || category(*lower) <= category(*higher)) return *higher;
  if (is_complex(*lower) && is_floating(*higher))
    return complex_dtype(*higher).value_or(kComplex64);
  return promote_types(*higher, *lower);
}

std::optional<DType> promote(std::optional<DType> a, DType b) { return a ? promote_types(*a, b) : b; }

}  // namespace

DType result_type(const Tensor& a, const Tensor& b) {
  bool a0 = a.dim() == 0, b0 = b.dim() == 0;
  if (a0 == b0) return promote_types(a.dtype(), b.dtype());
  return a0 ? combine(b.dtype(), a.dtype()) : combine(a.dtype(), b.dtype());
}

DType result_type(const Tensor& t, const Scalar& s) { return combine(t.dtype(), number_dtype(s)); }

DType result_type(const std::vector<Tensor>& tensors) {
  std::optional<DType> dimensioned, zero_dim;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    if (t.dim() == 0) zero_dim = promote(zero_dim, t.dtype());
    else dimensioned = promote(dimensioned, t.dtype());
  }
  EMBER_CHECK_VALUE(dimensioned || zero_dim, "result_type: no tensor given");
  return combine(dimensioned, zero_dim);
}

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  return !(from != kBool && to == kBool);
}

}  // namespace ember
