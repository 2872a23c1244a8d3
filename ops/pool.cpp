#include "ember/ops/pool.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/index.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// PyTorch's pooling_output_shape: with ceil_mode the last window must start inside the input or
// its left padding.
int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  int64_t out = floor_div(in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_input(const Tensor& input, const char* op) {
  EMBER_CHECK_VALUE(input.defined(), op, ": input is an undefined tensor");
  bool ok = input.dim() == 3 || input.dim() == 4;
  for (int64_t d = input.dim() - 3; ok && d < input.dim(); ++d) ok = input.size(d) > 0;
  EMBER_CHECK_VALUE(ok, op, ": expected a 3-D [C, H, W] or 4-D [N, C, H, W] input with non-zero C, H and W, got ",
                    input.sizes());
  check_floating_compute(input.dtype(), op);
}

// Checks the window arguments against `input` and returns the geometry and output size.
Pool2dParams window_params(const char* op, const Tensor& input, Size2 kernel, std::optional<Size2> stride,
                           Size2 padding, Size2 dilation, bool ceil_mode, DimVector& out_shape) {
  check_input(input, op);
  Pool2dParams p;
  p.kernel = kernel;
  p.stride = stride.value_or(kernel);
  p.padding = padding;
  p.dilation = dilation;
  p.ceil_mode = ceil_mode;
  EMBER_CHECK_VALUE(kernel.h > 0 && kernel.w > 0, op, ": kernel_size must be positive, got ", kernel);
  EMBER_CHECK_VALUE(p.stride.h > 0 && p.stride.w > 0, op, ": stride must be positive, got ", p.stride);
  EMBER_CHECK_VALUE(dilation.h > 0 && dilation.w > 0, op, ": dilation must be positive, got ", dilation);
  EMBER_CHECK_VALUE(padding.h >= 0 && padding.w >= 0 && padding.h <= kernel.h / 2 && padding.w <= kernel.w / 2,
                    op, ": padding ", padding, " must be non-negative and at most half of kernel_size ", kernel);
  const int64_t H = input.size(-2), W = input.size(-1);
  Size2 out(pool_out_size(H, kernel.h, padding.h, p.stride.h, dilation.h, ceil_mode),
            pool_out_size(W, kernel.w, padding.w, p.stride.w, dilation.w, ceil_mode));
  EMBER_CHECK_VALUE(out.h > 0 && out.w > 0, op, ": input ", input.sizes(), " is too small for kernel_size ",
                    kernel, " (dilation ", dilation, ", padding ", padding, "): the output would be ", out);
  out_shape = input.sizes().vec();
  if (out_shape.size() == 3) out_shape.insert(out_shape.begin(), 1);
  out_shape[2] = out.h;
  out_shape[3] = out.w;
  return p;
}

// Checks an adaptive pooling's output size against `input` and returns its geometry and output shape.
Pool2dParams adaptive_params(const char* op, const Tensor& input, Size2 output_size, DimVector& out_shape) {
  check_input(input, op);
  EMBER_CHECK_VALUE(output_size.h >= 0 && output_size.w >= 0, op, ": output_size must be non-negative, got ",
                    output_size);
  Pool2dParams p;
  p.adaptive = true;
  out_shape = input.sizes().vec();
  if (out_shape.size() == 3) out_shape.insert(out_shape.begin(), 1);
  out_shape[2] = output_size.h;
  out_shape[3] = output_size.w;
  return p;
}

// ---- max

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices, IntArrayRef input_shape);

// d max_pool/dx = grad sent to each window's argmax (summed where windows overlap)
struct MaxPool2dBackward : autograd::Node {
  SavedTensor indices;
  DimVector input_shape;
  const char* name() const override { return "MaxPool2dBackward"; }
  TensorList apply(TensorList&& g) override {
    return {max_pool2d_backward(g[0], indices.unpack(this), input_shape)};
  }
  void release_saved() override { indices.reset(); }
};

// The max-pool gradient is linear in grad: d/dgrad = the argmax values of ggi (a gather)
struct MaxPool2dBackwardBackward : autograd::Node {
  SavedTensor indices;
  const char* name() const override { return "MaxPool2dBackwardBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor idx = indices.unpack(this);
    return {reshape(gather(flatten(g[0], 2), 2, flatten(idx, 2)), idx.sizes())};
  }
  void release_saved() override { indices.reset(); }
};

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices, IntArrayRef input_shape) {
  Tensor gi = empty(input_shape, grad.options());
  max_pool2d_backward_stub(grad.device().type, gi, contiguous_data(grad), indices);
  if (autograd::any_requires_grad(grad)) {
    auto node = autograd::make_node<MaxPool2dBackwardBackward>(grad);
    node->indices = SavedTensor(indices);
    autograd::set_history(gi, node);
  }
  return gi;
}

std::tuple<Tensor, Tensor> max_pool_4d(const Tensor& x, const Pool2dParams& p, IntArrayRef out_shape) {
  Tensor out = empty(out_shape, x.options());
  Tensor indices = empty(out_shape, TensorOptions(kInt64).device(x.device()));
  if (out.numel() > 0) max_pool2d_stub(x.device().type, out, indices, contiguous_data(x), p);
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node<MaxPool2dBackward>(x);
    node->indices = SavedTensor(indices);
    node->input_shape = x.sizes().vec();
    autograd::set_history(out, node);
  }
  return {out, indices};
}

// ---- average (adaptive or not)

Tensor avg_pool_4d(const Tensor& x, const Pool2dParams& p, IntArrayRef out_shape);

Tensor avg_pool2d_backward(const Tensor& grad, IntArrayRef input_shape, const Pool2dParams& p);

// average pooling is linear, out = A x: d out/dx = A^T grad
struct AvgPool2dBackward : autograd::Node {
  DimVector input_shape;
  Pool2dParams p;
  const char* name() const override { return p.adaptive ? "AdaptiveAvgPool2dBackward" : "AvgPool2dBackward"; }
  TensorList apply(TensorList&& g) override { return {avg_pool2d_backward(g[0], input_shape, p)}; }
};

// A^T grad is linear in grad: d/dgrad = A ggi, the pooling itself
struct AvgPool2dBackwardBackward : autograd::Node {
  DimVector out_shape;
  Pool2dParams p;
  const char* name() const override { return "AvgPool2dBackwardBackward"; }
  TensorList apply(TensorList&& g) override { return {avg_pool_4d(g[0], p, out_shape)}; }
};

Tensor avg_pool2d_backward(const Tensor& grad, IntArrayRef input_shape, const Pool2dParams& p) {
  Tensor gi = empty(input_shape, grad.options());
  avg_pool2d_backward_stub(grad.device().type, gi, contiguous_data(grad), p);
  if (autograd::any_requires_grad(grad)) {
    auto node = autograd::make_node<AvgPool2dBackwardBackward>(grad);
    node->out_shape = grad.sizes().vec();
    node->p = p;
    autograd::set_history(gi, node);
  }
  return gi;
}

Tensor avg_pool_4d(const Tensor& x, const Pool2dParams& p, IntArrayRef out_shape) {
  Tensor out = empty(out_shape, x.options());
  if (out.numel() > 0) avg_pool2d_stub(x.device().type, out, contiguous_data(x), p);
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node<AvgPool2dBackward>(x);
    node->input_shape = x.sizes().vec();
    node->p = p;
    autograd::set_history(out, node);
  }
  return out;
}

// Pools a [C, H, W] input as a batch of one.
Tensor batched(const Tensor& input) { return input.dim() == 3 ? unsqueeze(input, 0) : input; }
Tensor unbatched_like(const Tensor& out, const Tensor& input) {
  return input.dim() == 3 ? squeeze(out, 0) : out;
}

}  // namespace

std::tuple<Tensor, Tensor> impl_max_pool2d_with_indices(const Tensor& input, Size2 kernel_size,
                                                        std::optional<Size2> stride, Size2 padding, Size2 dilation,
                                                        bool ceil_mode) {
  DimVector out_shape;
  Pool2dParams p = window_params("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, out_shape);
  auto [out, indices] = max_pool_4d(batched(input), p, out_shape);
  return {unbatched_like(out, input), unbatched_like(indices, input)};
}

Tensor impl_max_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride, Size2 padding,
                       Size2 dilation, bool ceil_mode) {
  return std::get<0>(max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor impl_avg_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride, Size2 padding,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  DimVector out_shape;
  Pool2dParams p = window_params("avg_pool2d", input, kernel_size, stride, padding, 1, ceil_mode, out_shape);
  EMBER_CHECK_VALUE(!divisor_override || *divisor_override != 0, "avg_pool2d: divisor_override must be non-zero");
  p.count_include_pad = count_include_pad;
  p.divisor_override = divisor_override;
  return unbatched_like(avg_pool_4d(batched(input), p, out_shape), input);
}

std::tuple<Tensor, Tensor> impl_adaptive_max_pool2d_with_indices(const Tensor& input, Size2 output_size) {
  DimVector out_shape;
  Pool2dParams p = adaptive_params("adaptive_max_pool2d", input, output_size, out_shape);
  auto [out, indices] = max_pool_4d(batched(input), p, out_shape);
  return {unbatched_like(out, input), unbatched_like(indices, input)};
}

Tensor impl_adaptive_max_pool2d(const Tensor& input, Size2 output_size) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, output_size));
}

Tensor impl_adaptive_avg_pool2d(const Tensor& input, Size2 output_size) {
  DimVector out_shape;
  Pool2dParams p = adaptive_params("adaptive_avg_pool2d", input, output_size, out_shape);
  return unbatched_like(avg_pool_4d(batched(input), p, out_shape), input);
}

}  // namespace ember
