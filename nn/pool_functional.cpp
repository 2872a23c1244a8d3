#include "ember/nn/pool_functional.h"

#include <string>

#include "ember/ops/autocast.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {
namespace {

// [N, C, L] or [C, L] as [.., 1, L]: the 2-D op's windows are 1 x k.
Tensor on_plane(const Tensor& input, const char* op) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, op, "(): Expected 2D or 3D input tensor, but got ", input.sizes());
  return input.unsqueeze(-2);
}
std::tuple<Tensor, Tensor> off_plane(std::tuple<Tensor, Tensor> r) {
  return {std::get<0>(r).squeeze(-2), std::get<1>(r).squeeze(-2)};
}

Tensor batched5(const Tensor& input, const char* op, bool non_empty) {
  EMBER_CHECK((input.dim() == 4 || input.dim() == 5) && (!non_empty || input.numel() > 0), op,
              ": non-empty 4D or 5D (batch mode) tensor expected for input, got shape ", input.sizes());
  return input.dim() == 5 ? input : input.unsqueeze(0);
}
Tensor unbatched(const Tensor& out, const Tensor& input) { return input.dim() == 5 ? out : out.squeeze(0); }

// PyTorch's checks of a 3-D window and its output sizes, so errors name the 3-D shapes rather
// than the 2-D passes'.
void check_geometry(const char* op, const Tensor& x, Size3 k, Size3 s, Size3 p, Size3 d, bool ceil_mode) {
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(k[i] > 0, op, ": kernel_size must be greater than zero, but got ", k);
    EMBER_CHECK(s[i] > 0, op, ": stride should not be zero, but got ", s);
    EMBER_CHECK(d[i] > 0, op, ": dilation should be greater than zero, but got ", d);
    EMBER_CHECK(p[i] >= 0 && p[i] <= (d[i] * (k[i] - 1) + 1) / 2, op,
                ": pad should be at most half of effective kernel size, but got pad=", p[i], ", kernel_size=", k[i],
                " and dilation=", d[i]);
  }
  int64_t out[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t n = x.size(2 + i), span = n + 2 * p[i] - d[i] * (k[i] - 1) - 1;
    out[i] = (span + (ceil_mode ? s[i] - 1 : 0)) / s[i] + 1;
    if (ceil_mode && (out[i] - 1) * s[i] >= n + p[i]) --out[i];  // the last window starts inside
    if (span < 0) out[i] = 0;
  }
  EMBER_CHECK(out[0] > 0 && out[1] > 0 && out[2] > 0, op, ": Given input size: (", x.size(1), "x", x.size(2), "x",
              x.size(3), "x", x.size(4), "). Calculated output size: (", x.size(1), "x", out[0], "x", out[1], "x",
              out[2], "). Output size is too small");
}

// x [N, C, D, H, W] as the planes of the first pass (every depth slice) and of the second (D x
// oH oW per channel).
Tensor depth_slices(const Tensor& x) { return x.reshape({x.size(0), x.size(1) * x.size(2), x.size(3), x.size(4)}); }
Tensor depth_plane(const Tensor& first, const Tensor& x) {
  return first.reshape({x.size(0), x.size(1), x.size(2), first.size(-2) * first.size(-1)});
}
Tensor as_volume(const Tensor& second, const Tensor& first) {
  return second.reshape({second.size(0), second.size(1), second.size(2), first.size(-2), first.size(-1)});
}

// The flat D*H*W positions of the maxima: `second` indexes the D x (oH oW) plane of the first
// pass's maxima, `first` each of those maxima's flat H*W position.
Tensor combine_indices(const Tensor& first, const Tensor& second, const Tensor& x) {
  const int64_t hw_out = first.size(-2) * first.size(-1);
  Tensor depth = floor_divide(second, hw_out);
  return depth * (x.size(3) * x.size(4)) + gather(depth_plane(first, x), 2, depth);
}

Size3 adaptive_size(Size3 size, const Tensor& x, const char* op) {
  int64_t v[3];
  for (int i = 0; i < 3; ++i) {
    v[i] = size[i] == -1 ? x.size(2 + i) : size[i];
    EMBER_CHECK_VALUE(v[i] >= 0, op, ": elements of output_size must be greater than or equal to 0 but received ",
                      size);
  }
  return {v[0], v[1], v[2]};
}
Tensor adaptive_input(const Tensor& input, const char* op) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, op, "(): Expected 4D or 5D tensor, but got ", input.sizes());
  return input.dim() == 5 ? input : input.unsqueeze(0);
}

// (sign(avg) relu(|avg|) window)^(1/p): PyTorch's formula, so a negative window sum of an odd
// power gives NaN as there.
Tensor lp_from_average(const Tensor& average, double norm_type, int64_t window) {
  return pow(sign(average) * relu(abs(average)) * static_cast<double>(window), 1.0 / norm_type);
}

}  // namespace

Tensor max_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride, int64_t padding,
                  int64_t dilation, bool ceil_mode) {
  return std::get<0>(max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, int64_t kernel_size,
                                                   std::optional<int64_t> stride, int64_t padding, int64_t dilation,
                                                   bool ceil_mode) {
  return off_plane(max_pool2d_with_indices(on_plane(input, "max_pool1d"), {1, kernel_size},
                                           Size2(1, stride.value_or(kernel_size)), {0, padding}, {1, dilation},
                                           ceil_mode));
}
Tensor avg_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride, int64_t padding,
                  bool ceil_mode, bool count_include_pad) {
  return avg_pool2d(on_plane(input, "avg_pool1d"), {1, kernel_size}, Size2(1, stride.value_or(kernel_size)),
                    {0, padding}, ceil_mode, count_include_pad)
      .squeeze(-2);
}
Tensor adaptive_avg_pool1d(const Tensor& input, int64_t output_size) {
  return adaptive_avg_pool2d(on_plane(input, "adaptive_avg_pool1d"), {1, output_size}).squeeze(-2);
}
Tensor adaptive_max_pool1d(const Tensor& input, int64_t output_size) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, output_size));
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, int64_t output_size) {
  return off_plane(adaptive_max_pool2d_with_indices(on_plane(input, "adaptive_max_pool1d"), {1, output_size}));
}

Tensor lp_pool1d(const Tensor& input, double norm_type, int64_t kernel_size, std::optional<int64_t> stride,
                 bool ceil_mode) {
  Tensor plane = on_plane(input, "lp_pool1d");
  return lp_pool2d(plane, norm_type, {1, kernel_size}, Size2(1, stride.value_or(kernel_size)), ceil_mode).squeeze(-2);
}
Tensor lp_pool2d(const Tensor& input, double norm_type, Size2 kernel_size, std::optional<Size2> stride,
                 bool ceil_mode) {
  Tensor average = avg_pool2d(pow(input, norm_type), kernel_size, stride.value_or(kernel_size), 0, ceil_mode);
  return lp_from_average(average, norm_type, kernel_size.h * kernel_size.w);
}
Tensor lp_pool3d(const Tensor& input, double norm_type, Size3 kernel_size, std::optional<Size3> stride,
                 bool ceil_mode) {
  Tensor average = avg_pool3d(pow(input, norm_type), kernel_size, stride.value_or(kernel_size), 0, ceil_mode);
  return lp_from_average(average, norm_type, kernel_size.product());
}

Tensor max_pool3d(const Tensor& input, Size3 kernel_size, std::optional<Size3> stride, Size3 padding, Size3 dilation,
                  bool ceil_mode) {
  return std::get<0>(max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, Size3 k, std::optional<Size3> stride, Size3 p,
                                                   Size3 d, bool ceil_mode) {
  if (autocast::applies("max_pool3d", input))
    return autocast::run("max_pool3d", {input}, [&](const autocast::Cast& cast) {
      return max_pool3d_with_indices(cast(input), k, stride, p, d, ceil_mode);
    });
  Tensor x = batched5(input, "max_pool3d", true);
  const Size3 s = stride.value_or(k);
  check_geometry("max_pool3d", x, k, s, p, d, ceil_mode);
  auto [first, first_at] =
      max_pool2d_with_indices(depth_slices(x), {k.h, k.w}, Size2(s.h, s.w), {p.h, p.w}, {d.h, d.w}, ceil_mode);
  auto [second, second_at] =
      max_pool2d_with_indices(depth_plane(first, x), {k.d, 1}, Size2(s.d, 1), {p.d, 0}, {d.d, 1}, ceil_mode);
  Tensor at = combine_indices(first_at, second_at, x);
  return {unbatched(as_volume(second, first), input), unbatched(as_volume(at, first), input)};
}
Tensor avg_pool3d(const Tensor& input, Size3 k, std::optional<Size3> stride, Size3 p, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  if (autocast::applies("avg_pool3d", input))
    return autocast::run("avg_pool3d", {input}, [&](const autocast::Cast& cast) {
      return avg_pool3d(cast(input), k, stride, p, ceil_mode, count_include_pad, divisor_override);
    });
  Tensor x = batched5(input, "avg_pool3d", true);
  const Size3 s = stride.value_or(k);
  check_geometry("avg_pool3d", x, k, s, p, 1, ceil_mode);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "avg_pool3d: divisor must be not zero");
  // NB: with an override, the first pass sums (divisor 1) and the second divides once.
  std::optional<int64_t> first_divisor = divisor_override ? std::optional<int64_t>(1) : std::nullopt;
  Tensor first =
      avg_pool2d(depth_slices(x), {k.h, k.w}, Size2(s.h, s.w), {p.h, p.w}, ceil_mode, count_include_pad, first_divisor);
  Tensor second = avg_pool2d(depth_plane(first, x), {k.d, 1}, Size2(s.d, 1), {p.d, 0}, ceil_mode, count_include_pad,
                             divisor_override);
  return unbatched(as_volume(second, first), input);
}
Tensor adaptive_avg_pool3d(const Tensor& input, Size3 output_size) {
  if (autocast::applies("adaptive_avg_pool3d", input))
    return autocast::run("adaptive_avg_pool3d", {input},
                         [&](const autocast::Cast& cast) { return adaptive_avg_pool3d(cast(input), output_size); });
  Tensor x = adaptive_input(input, "adaptive_avg_pool3d");
  const Size3 o = adaptive_size(output_size, x, "adaptive_avg_pool3d");
  Tensor first = adaptive_avg_pool2d(depth_slices(x), {o.h, o.w});
  Tensor second = adaptive_avg_pool2d(depth_plane(first, x), {o.d, o.h * o.w});
  return unbatched(as_volume(second, first), input);
}
Tensor adaptive_max_pool3d(const Tensor& input, Size3 output_size) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, output_size));
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input, Size3 output_size) {
  if (autocast::applies("adaptive_max_pool3d", input))
    return autocast::run("adaptive_max_pool3d", {input}, [&](const autocast::Cast& cast) {
      return adaptive_max_pool3d_with_indices(cast(input), output_size);
    });
  Tensor x = adaptive_input(input, "adaptive_max_pool3d");
  const Size3 o = adaptive_size(output_size, x, "adaptive_max_pool3d");
  auto [first, first_at] = adaptive_max_pool2d_with_indices(depth_slices(x), {o.h, o.w});
  auto [second, second_at] = adaptive_max_pool2d_with_indices(depth_plane(first, x), {o.d, o.h * o.w});
  Tensor at = combine_indices(first_at, second_at, x);
  return {unbatched(as_volume(second, first), input), unbatched(as_volume(at, first), input)};
}

}  // namespace ember::nn::functional
