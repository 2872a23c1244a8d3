#include "ember/ops/pad.h"

#include <algorithm>
#include <utility>

#include "ember/core/factory.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

enum class PadMode { Constant, Reflect, Replicate, Circular };

PadMode pad_mode(std::string_view mode) {
  if (mode == "constant") return PadMode::Constant;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "replicate") return PadMode::Replicate;
  if (mode == "circular") return PadMode::Circular;
  throw ValueError(detail::str("pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got '", mode, "'"));
}

// A block shaped as x but `amount` long along dim d, filled with value.
Tensor constant_block(const Tensor& x, int64_t d, int64_t amount, double value) {
  DimVector shape = x.sizes().vec();
  shape[static_cast<size_t>(d)] = amount;
  return full(shape, value, x.options());
}

// The `before` and `after` blocks non-constant modes add along dim d of x (size n > 0).
std::pair<Tensor, Tensor> edge_blocks(const Tensor& x, int64_t d, int64_t before, int64_t after, PadMode mode) {
  const int64_t n = x.size(d);
  auto repeated = [&](int64_t start, int64_t amount) {
    DimVector shape = x.sizes().vec();
    shape[static_cast<size_t>(d)] = amount;
    return expand(narrow(x, d, start, 1), shape);
  };
  switch (mode) {
    case PadMode::Reflect:
      return {flip(narrow(x, d, 1, before), {d}), flip(narrow(x, d, n - 1 - after, after), {d})};
    case PadMode::Replicate:
      return {repeated(0, before), repeated(n - 1, after)};
    case PadMode::Circular:
      return {narrow(x, d, n - before, before), narrow(x, d, 0, after)};
    case PadMode::Constant:
      break;
  }
  EMBER_INTERNAL_ASSERT(false, "pad: constant mode has no edge blocks");
  return {};
}

void check_edge_mode(const Tensor& input, IntArrayRef pad, std::string_view mode) {
  const auto dims = static_cast<int64_t>(pad.size() / 2);
  EMBER_CHECK_VALUE(dims >= 1 && dims <= 3 && (input.dim() == dims + 1 || input.dim() == dims + 2),
                    "pad: mode '", mode, "' pads the last 1 to 3 dims of a batched or unbatched input (", dims,
                    " dims need a ", dims + 1, "-D or ", dims + 2, "-D input), got pad ", pad, " for input ",
                    input.sizes());
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t d = input.dim() - 1 - i, n = input.size(d);
    const int64_t before = pad[static_cast<size_t>(2 * i)], after = pad[static_cast<size_t>(2 * i + 1)];
    EMBER_CHECK_VALUE(before >= 0 && after >= 0, "pad: mode '", mode, "' takes non-negative amounts, got ", pad);
    EMBER_CHECK_VALUE(n > 0 || (before == 0 && after == 0), "pad: mode '", mode, "' cannot pad dim ", d,
                      " of input ", input.sizes(), ", which is empty");
    if (mode == "reflect")
      EMBER_CHECK_VALUE(before < n && after < n, "pad: reflect amounts must be smaller than the padded dim: got (",
                        before, ", ", after, ") for dim ", d, " of size ", n, " (input ", input.sizes(), ")");
    if (mode == "circular")
      EMBER_CHECK_VALUE(before <= n && after <= n, "pad: circular amounts must not exceed the padded dim: got (",
                        before, ", ", after, ") for dim ", d, " of size ", n, " (input ", input.sizes(), ")");
  }
}

}  // namespace

Tensor pad(const Tensor& input, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  EMBER_CHECK_VALUE(input.defined(), "pad: input is an undefined tensor");
  const PadMode m = pad_mode(mode);
  EMBER_CHECK_VALUE(pad.size() % 2 == 0 && static_cast<int64_t>(pad.size() / 2) <= input.dim(),
                    "pad: expected an even number of amounts for at most ", input.dim(), " dims (input ",
                    input.sizes(), "), got ", pad);
  EMBER_CHECK_VALUE(m == PadMode::Constant || !value || *value == 0, "pad: value is only used in constant mode, got ",
                    *value, " with mode '", mode, "'");
  if (m != PadMode::Constant) check_edge_mode(input, pad, mode);
  Tensor out = input;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = input.dim() - 1 - static_cast<int64_t>(i);
    int64_t before = pad[2 * i], after = pad[2 * i + 1];
    if (m == PadMode::Constant) {
      // Negative amounts crop first; what is left of the dim is then padded.
      const int64_t n = out.size(d);
      const int64_t crop_before = std::max<int64_t>(0, -before), crop_after = std::max<int64_t>(0, -after);
      EMBER_CHECK_VALUE(crop_before + crop_after <= n, "pad: padding ", pad, " crops more than the ", n,
                        " elements of dim ", d, " of input ", input.sizes());
      if (crop_before + crop_after > 0) out = narrow(out, d, crop_before, n - crop_before - crop_after);
      before = std::max<int64_t>(0, before);
      after = std::max<int64_t>(0, after);
      if (before == 0 && after == 0) continue;
      out = cat({constant_block(out, d, before, value.value_or(0.0)), out,
                 constant_block(out, d, after, value.value_or(0.0))},
                d);
    } else {
      if (before == 0 && after == 0) continue;
      auto [lo, hi] = edge_blocks(out, d, before, after, m);
      out = cat({lo, out, hi}, d);
    }
  }
  return out;
}

}  // namespace ember
