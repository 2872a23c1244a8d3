#include "ember/ops/pad.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/autocast.h"

namespace ember {
namespace {

enum class Mode { Constant, Reflect, Replicate, Circular };

Mode mode_of(std::string_view mode) {
  if (mode == "constant") return Mode::Constant;
  if (mode == "reflect") return Mode::Reflect;
  if (mode == "replicate") return Mode::Replicate;
  if (mode == "circular") return Mode::Circular;
  EMBER_CHECK_AS(NotImplementedError, false, "pad: Unrecognised padding mode ", mode,
                 "; expected 'constant', 'reflect', 'replicate' or 'circular'");
  return Mode::Constant;
}

// Where each entry of a dim of size n padded by (before, after) comes from.
std::vector<int64_t> sources(Mode mode, int64_t n, int64_t before, int64_t after) {
  const int64_t out = n + before + after;
  std::vector<int64_t> index(static_cast<size_t>(std::max<int64_t>(out, 0)));
  // Circular wraps the cropped extent [lo, lo + m) (as PyTorch, which crops first).
  const int64_t lo = std::max<int64_t>(-before, 0), m = n - lo - std::max<int64_t>(-after, 0);
  for (int64_t j = 0; j < out; ++j) {
    int64_t i = j - before;
    if (mode == Mode::Reflect) {
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
    } else if (mode == Mode::Replicate) {
      i = std::clamp<int64_t>(i, 0, n - 1);
    } else {
      i = lo + ((j - std::max<int64_t>(before, 0)) % m + m) % m;
    }
    index[static_cast<size_t>(j)] = i;
  }
  return index;
}

void check_mode(const Tensor& self, IntArrayRef pad, Mode mode, std::string_view name) {
  const int64_t padded = static_cast<int64_t>(pad.size()) / 2, nd = self.dim();
  EMBER_CHECK_AS(NotImplementedError, padded >= 1 && padded <= 3 && (nd == padded + 1 || nd == padded + 2),
                 "pad: Padding size ", pad.size(), " is not supported for ", nd, "D input tensor in mode '", name,
                 "' (it pads the last 1, 2 or 3 dims of an input with 1 or 2 more dims)");
  if (mode != Mode::Circular) {
    // The dims besides a leading batch dim must be non-empty (an unbatched input's channels may be).
    for (int64_t d = nd == padded + 2 ? 1 : nd - padded; d < nd; ++d)
      EMBER_CHECK_VALUE(self.size(d) > 0, "pad: Expected ", padded + 1, "D or ", padded + 2,
                        "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
                        "but got: ", self.sizes());
  }
  for (int64_t i = 0; i < padded; ++i) {
    const int64_t d = nd - 1 - i, n = self.size(d), before = pad[static_cast<size_t>(2 * i)],
                  after = pad[static_cast<size_t>(2 * i + 1)];
    if (mode == Mode::Circular) {
      EMBER_CHECK_VALUE(before <= n && after <= n, "pad: Padding value causes wrapping around more than once: padding (",
                        before, ", ", after, ") at dimension ", d, " of input ", self.sizes());
      EMBER_CHECK_VALUE(n + before + after >= 0, "pad: Negative padding value is resulting in an empty dimension: padding (",
                        before, ", ", after, ") at dimension ", d, " of input ", self.sizes());
      const int64_t kept = n - std::max<int64_t>(-before, 0) - std::max<int64_t>(-after, 0);
      EMBER_CHECK_VALUE(kept > 0 || n + before + after == 0, "pad: circular padding (", before, ", ", after,
                        ") at dimension ", d, " of input ", self.sizes(), " would wrap around an empty extent");
      continue;
    }
    if (mode == Mode::Reflect)
      EMBER_CHECK_VALUE(before < n && after < n,
                        "pad: Padding size should be less than the corresponding input dimension, but got: padding (",
                        before, ", ", after, ") at dimension ", d, " of input ", self.sizes());
    EMBER_CHECK_VALUE(n + before + after >= 1, "pad: input (size ", n, " at dimension ", d,
                      ") is too small. Calculated output size: ", n + before + after, " (mode '", name, "')");
  }
}

Tensor constant_pad(const Tensor& self, IntArrayRef pad, Scalar value) {
  Tensor out = self;
  for (int64_t i = 0; i < static_cast<int64_t>(pad.size()) / 2; ++i) {
    const int64_t d = self.dim() - 1 - i, before = pad[static_cast<size_t>(2 * i)],
                  after = pad[static_cast<size_t>(2 * i + 1)];
    EMBER_CHECK_VALUE(out.size(d) + before + after >= 0, "pad: padding (", before, ", ", after, ") at dimension ", d,
                      " of input ", self.sizes(), " would leave a negative size");
    if (before < 0) out = narrow(out, d, -before, out.size(d) + before);
    if (after < 0) out = narrow(out, d, 0, out.size(d) + after);
    if (before <= 0 && after <= 0) continue;
    DimVector shape = out.sizes().vec();
    std::vector<Tensor> parts;
    if (before > 0) {
      shape[static_cast<size_t>(d)] = before;
      parts.push_back(full(shape, value, out.options()));
    }
    parts.push_back(out);
    if (after > 0) {
      shape[static_cast<size_t>(d)] = after;
      parts.push_back(full(shape, value, out.options()));
    }
    out = cat(parts, d);
  }
  // A copy, as PyTorch's: where the pads only crop, out is a narrowed view of self, and writes to
  // either would show in the other.
  return out.storage() == self.storage() ? out.clone() : out;
}

}  // namespace

Tensor impl_pad(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<Scalar> value) {
  EMBER_CHECK_VALUE(pad.size() % 2 == 0, "pad: Padding length must be divisible by 2, got ", pad.size());
  EMBER_CHECK_VALUE(static_cast<int64_t>(pad.size()) <= 2 * self.dim(),
                    "pad: Padding length should be less than or equal to two times the input dimension but got "
                    "padding length ", pad.size(), " and input of dimension ", self.dim());
  const Mode m = mode_of(mode);
  if (autocast::engaged(self)) {
    // PyTorch's autocast lists name the kernels (reflection_pad2d, replication_pad3d, ...): those on
    // them compute in float32, the rest in the input's dtype
    std::string kernel = "pad";
    if (m == Mode::Reflect || m == Mode::Replicate) {
      std::string k = std::string(m == Mode::Reflect ? "reflection" : "replication") + "_pad" +
                      std::to_string(pad.size() / 2) + "d";
      if (autocast::policy(k, self.device().type) != autocast::Policy::none) kernel = k;
    }
    if (autocast::applies(kernel, self))
      return autocast::run(kernel, {self}, [&](const autocast::Cast& cast) { return ember::pad(cast(self), pad, mode, value); });
  }
  if (m == Mode::Constant) return constant_pad(self, pad, value.value_or(Scalar(0)));
  EMBER_CHECK_VALUE(!value || value->to<double>() == 0, "pad: Padding mode \"", mode,
                    "\" doesn't take in value argument");
  check_mode(self, pad, m, mode);
  Tensor out = self;
  for (int64_t i = 0; i < static_cast<int64_t>(pad.size()) / 2; ++i) {
    const int64_t d = self.dim() - 1 - i;
    std::vector<int64_t> index = sources(m, self.size(d), pad[static_cast<size_t>(2 * i)],
                                         pad[static_cast<size_t>(2 * i + 1)]);
    out = index_select(out, d, tensor(index, {static_cast<int64_t>(index.size())}, TensorOptions(kInt64).device(self.device())));
  }
  return out;
}

}  // namespace ember
