#include "ember/nn/fold.h"

#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::nn {
namespace functional {
namespace {

struct Windows {
  Tensor index;   // flat positions in the padded plane of every window element, ordered (ki, kj, oh, ow)
  int64_t count;  // oH oW
};

Windows window_positions(const char* op, int64_t hp, int64_t wp, Size2 k, Size2 d, Size2 s, Device device) {
  EMBER_CHECK(k.h > 0 && k.w > 0 && d.h > 0 && d.w > 0 && s.h > 0 && s.w > 0, op,
              ": kernel_size, dilation and stride must be positive, got kernel_size=", k, ", dilation=", d,
              ", stride=", s);
  const int64_t oh = (hp - d.h * (k.h - 1) - 1) / s.h + 1, ow = (wp - d.w * (k.w - 1) - 1) / s.w + 1;
  EMBER_CHECK(hp >= d.h * (k.h - 1) + 1 && wp >= d.w * (k.w - 1) + 1, op, ": the padded input ", hp, "x", wp,
              " is smaller than the dilated kernel ", d.h * (k.h - 1) + 1, "x", d.w * (k.w - 1) + 1);
  TensorOptions o = TensorOptions(kInt64).device(device);
  Tensor rows = arange(k.h, o).reshape({k.h, 1, 1, 1}) * d.h + arange(oh, o).reshape({1, 1, oh, 1}) * s.h;
  Tensor cols = arange(k.w, o).reshape({1, k.w, 1, 1}) * d.w + arange(ow, o).reshape({1, 1, 1, ow}) * s.w;
  return {(rows * wp + cols).reshape({-1}), oh * ow};
}

}  // namespace

Tensor unfold(const Tensor& input, Size2 kernel_size, Size2 dilation, Size2 padding, Size2 stride) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "unfold: expected a 3-D or 4-D input, got ", input.sizes());
  EMBER_CHECK(padding.h >= 0 && padding.w >= 0, "unfold: padding must be non-negative, got ", padding);
  Tensor x = input.dim() == 4 ? input : input.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1);
  if (padding.h || padding.w) x = pad(x, {padding.w, padding.w, padding.h, padding.h});
  Windows w = window_positions("unfold", x.size(2), x.size(3), kernel_size, dilation, stride, x.device());
  // NB: explicit sizes, not -1, which an empty batch leaves undetermined
  Tensor out = index_select(x.reshape({n, c, x.size(2) * x.size(3)}), 2, w.index)
                   .reshape({n, c * kernel_size.h * kernel_size.w, w.count});
  return input.dim() == 4 ? out : out.squeeze(0);
}

Tensor fold(const Tensor& input, Size2 output_size, Size2 kernel_size, Size2 dilation, Size2 padding, Size2 stride) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "fold: expected a 2-D or 3-D input, got ", input.sizes());
  EMBER_CHECK(padding.h >= 0 && padding.w >= 0, "fold: padding must be non-negative, got ", padding);
  Tensor x = input.dim() == 3 ? input : input.unsqueeze(0);
  const int64_t n = x.size(0), ckk = x.size(1), windows = x.size(2), kk = kernel_size.h * kernel_size.w;
  EMBER_CHECK(kk > 0 && ckk % kk == 0,
              "fold: expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
              "input.size(1)=",
              ckk, " and kernel_size=", kernel_size);
  const int64_t c = ckk / kk, hp = output_size.h + 2 * padding.h, wp = output_size.w + 2 * padding.w;
  Windows w = window_positions("fold", hp, wp, kernel_size, dilation, stride, x.device());
  EMBER_CHECK(windows == w.count,
              "fold: expected input's dimension 2 to match the calculated number of sliding blocks ", w.count,
              ", but got input.size(2)=", windows);
  Tensor planes = zeros({n, c, hp * wp}, TensorOptions(x.dtype()).device(x.device()));
  planes = index_add(planes, 2, w.index, x.reshape({n, c, kk * windows}));
  Tensor out = planes.reshape({n, c, hp, wp});
  out = slice(slice(out, 2, padding.h, padding.h + output_size.h), 3, padding.w, padding.w + output_size.w);
  return input.dim() == 3 ? out : out.squeeze(0);
}

}  // namespace functional

Tensor Unfold::forward(const Tensor& input) {
  const UnfoldOptions& o = options_;
  return functional::unfold(input, o.kernel_size, o.dilation, o.padding, o.stride);
}
Tensor Fold::forward(const Tensor& input) {
  const FoldOptions& o = options_;
  return functional::fold(input, o.output_size, o.kernel_size, o.dilation, o.padding, o.stride);
}

std::string Unfold::extra_repr() const {
  const UnfoldOptions& o = options_;
  return "kernel_size=" + compact_repr(o.kernel_size) + ", dilation=" + compact_repr(o.dilation) +
         ", padding=" + compact_repr(o.padding) + ", stride=" + compact_repr(o.stride);
}
std::string Fold::extra_repr() const {
  const FoldOptions& o = options_;
  return "output_size=" + compact_repr(o.output_size) + ", kernel_size=" + compact_repr(o.kernel_size) +
         ", dilation=" + compact_repr(o.dilation) + ", padding=" + compact_repr(o.padding) +
         ", stride=" + compact_repr(o.stride);
}

}  // namespace ember::nn
