#include "ember/ops/upsample.h"

#include <cmath>
#include <vector>

#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

enum class Mode { Nearest, NearestExact, Linear, Cubic };

// The weighted taps of one resampled dim: output i = sum_t input[index[t][i]] * weight[t][i]
// (no weights for the nearest modes).
struct Taps {
  std::vector<Tensor> index, weight;
};

// PyTorch's compute_scales_value: 1 / scale factor when one was given, else in / out.
template <typename T>
T scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

// PyTorch's area_pixel_compute_scale and area_pixel_compute_source_index.
template <typename T>
T area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale_value<T>(scale, in, out);
}
template <typename T>
T source_index(T scale, int64_t i, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(i);
  // NB: the product is rounded before the subtraction, as in PyTorch; a build for FMA machines would
  // otherwise fuse the two (4.5 * (1/3.) - .5 gives 1 - 2^-53 instead of 1, and the tap a weight of
  // 0 should silence keeps its inf).
  const volatile T scaled = scale * (static_cast<T>(i) + T(0.5));
  const T src = scaled - T(0.5);
  return !cubic && src < T(0) ? T(0) : src;
}

// Keys' cubic convolution weights of the 4 taps around a point at fraction t past the second.
template <typename T>
void cubic_weights(T t, T (&w)[4]) {
  const T a = T(-0.75);
  auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

template <typename T>
Taps make_taps(Mode mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale, DType dtype) {
  const int taps = mode == Mode::Cubic ? 4 : mode == Mode::Linear ? 2 : 1;
  std::vector<std::vector<int64_t>> index(static_cast<size_t>(taps), std::vector<int64_t>(static_cast<size_t>(out)));
  std::vector<std::vector<T>> weight(static_cast<size_t>(taps), std::vector<T>(static_cast<size_t>(out)));
  auto clamp_index = [in](int64_t i) { return std::min(std::max<int64_t>(i, 0), in - 1); };
  for (int64_t i = 0; i < out; ++i) {
    const auto k = static_cast<size_t>(i);
    if (mode == Mode::Nearest || mode == Mode::NearestExact) {
      // NB: in float, as PyTorch's nearest_idx, whatever the input's dtype; exactly 1x and 2x are
      // special-cased there (nearest only), which the float arithmetic could otherwise miss.
      const float s = scale_value<float>(scale, in, out);
      int64_t src;
      if (mode == Mode::Nearest && out == in)
        src = i;
      else if (mode == Mode::Nearest && out == 2 * in)
        src = i >> 1;
      else if (mode == Mode::Nearest)
        src = static_cast<int64_t>(std::floor(static_cast<float>(i) * s));
      else
        src = static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(i) + 0.5) * s)));
      index[0][k] = std::min(src, in - 1);
      continue;
    }
    const T real = source_index<T>(area_scale<T>(in, out, align_corners, scale), i, align_corners, mode == Mode::Cubic);
    // PyTorch's guard_index_and_lambda.
    const int64_t base = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const T lambda = std::min(std::max(real - static_cast<T>(base), T(0)), T(1));
    if (mode == Mode::Linear) {
      index[0][k] = base;
      index[1][k] = base + (base < in - 1 ? 1 : 0);
      weight[0][k] = T(1) - lambda;
      weight[1][k] = lambda;
    } else {
      T w[4];
      cubic_weights(lambda, w);
      for (int t = 0; t < 4; ++t) {
        index[static_cast<size_t>(t)][k] = clamp_index(base - 1 + t);
        weight[static_cast<size_t>(t)][k] = w[t];
      }
    }
  }
  Taps result;
  for (int t = 0; t < taps; ++t) {
    result.index.push_back(tensor(index[static_cast<size_t>(t)], {out}, TensorOptions(kInt64)));
    if (taps > 1) result.weight.push_back(tensor(weight[static_cast<size_t>(t)], {out}, TensorOptions(dtype)));
  }
  return result;
}

// x resampled along dim d (negative) to `out` elements.
Tensor resample_dim(const Tensor& x, int64_t d, Mode mode, int64_t out, bool align_corners, std::optional<double> scale) {
  const int64_t in = x.size(d);
  // NB: 16-bit floats take float32 taps, rounded once into their dtype.
  Taps taps = is_16bit_float(x.dtype()) ? make_taps<float>(mode, in, out, align_corners, scale, x.dtype())
                                        : visit_floating_dtype(x.dtype(), "upsample", [&]<typename T>(type_tag<T>) {
                                            return make_taps<T>(mode, in, out, align_corners, scale, x.dtype());
                                          });
  DimVector wshape(static_cast<size_t>(-d), 1);  // [out, 1, ...]: broadcast along dim d
  wshape[0] = out;
  Tensor acc;
  for (size_t t = 0; t < taps.index.size(); ++t) {
    // NB: the taps are computed on the host; they go where x is.
    Tensor part = index_select(x, x.dim() + d, taps.index[t].to(x.device()));
    if (!taps.weight.empty()) part = part * reshape(taps.weight[t].to(x.device()), wshape);
    acc = acc.defined() ? acc + part : part;
  }
  return acc;
}

// Checks and resamples the last output_size.size() dims of input.
Tensor upsample(const char* op, const Tensor& input, std::vector<int64_t> output_size,
                std::vector<std::optional<double>> scales, Mode mode, bool align_corners) {
  if (autocast::applies(op, input))
    return autocast::run(op, {input}, [&](const autocast::Cast& cast) {
      return upsample(op, cast(input), output_size, scales, mode, align_corners);
    });
  const auto dims = static_cast<int64_t>(output_size.size());
  EMBER_CHECK_VALUE(input.defined(), op, ": input is an undefined tensor");
  check_floating_compute(input.dtype(), op);
  EMBER_CHECK_VALUE(input.dim() == dims + 1 || input.dim() == dims + 2, op, ": expected a ", dims + 1, "-D or ",
                    dims + 2, "-D input (an unbatched or batched [N, C, ", dims == 1 ? "L" : "H, W", "]), got ",
                    input.sizes());
  bool ok = true;
  for (int64_t i = 0; i < dims; ++i)
    ok = ok && input.size(input.dim() - dims + i) > 0 && output_size[static_cast<size_t>(i)] > 0;
  EMBER_CHECK_VALUE(ok, op, ": input and output sizes should be greater than 0, got input ", input.sizes(),
                    " and output_size ", IntArrayRef(output_size));
  Tensor x = input;
  for (int64_t i = dims - 1; i >= 0; --i) {  // the last dim first
    const auto k = static_cast<size_t>(i);
    x = resample_dim(x, i - dims, mode, output_size[k], align_corners, scales[k]);
  }
  return x;
}

}  // namespace

Tensor impl_upsample_nearest1d(const Tensor& input, int64_t output_size, std::optional<double> scales) {
  return upsample("upsample_nearest1d", input, {output_size}, {scales}, Mode::Nearest, false);
}

Tensor impl_upsample_nearest2d(const Tensor& input, Size2 output_size, std::optional<double> scales_h,
                               std::optional<double> scales_w) {
  return upsample("upsample_nearest2d", input, {output_size.h, output_size.w}, {scales_h, scales_w}, Mode::Nearest,
                  false);
}

Tensor impl_upsample_nearest_exact1d(const Tensor& input, int64_t output_size, std::optional<double> scales) {
  return upsample("upsample_nearest_exact1d", input, {output_size}, {scales}, Mode::NearestExact, false);
}

Tensor impl_upsample_nearest_exact2d(const Tensor& input, Size2 output_size, std::optional<double> scales_h,
                                     std::optional<double> scales_w) {
  return upsample("upsample_nearest_exact2d", input, {output_size.h, output_size.w}, {scales_h, scales_w},
                  Mode::NearestExact, false);
}

Tensor impl_upsample_linear1d(const Tensor& input, int64_t output_size, bool align_corners,
                              std::optional<double> scales) {
  return upsample("upsample_linear1d", input, {output_size}, {scales}, Mode::Linear, align_corners);
}

Tensor impl_upsample_bilinear2d(const Tensor& input, Size2 output_size, bool align_corners,
                                std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample("upsample_bilinear2d", input, {output_size.h, output_size.w}, {scales_h, scales_w}, Mode::Linear,
                  align_corners);
}

Tensor impl_upsample_bicubic2d(const Tensor& input, Size2 output_size, bool align_corners,
                               std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample("upsample_bicubic2d", input, {output_size.h, output_size.w}, {scales_h, scales_w}, Mode::Cubic,
                  align_corners);
}

}  // namespace ember
