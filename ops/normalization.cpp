#include "ember/ops/normalization.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/reduce.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

void check_floating(const Tensor& t, const char* op) {
  check_floating_compute(t.dtype(), op);
}

// An optional parameter: undefined, or of `shape` and input's dtype and device.
void check_param(const Tensor& p, const Tensor& input, IntArrayRef shape, const char* op,
                 const char* name) {
  if (!p.defined()) return;
  EMBER_CHECK_VALUE(p.sizes() == shape, op, ": ", name, " has shape ", p.sizes(), "; expected ", shape,
                    " for input ", input.sizes());
  EMBER_CHECK_TYPE(p.dtype() == input.dtype(), op, ": ", name, " has dtype ", p.dtype(),
                   "; expected ", input.dtype(), " (the input's)");
  EMBER_CHECK_VALUE(p.device() == input.device(), op, ": ", name, " is on ", p.device(),
                    ", input on ", input.device());
}

// ---- batch_norm

struct BatchNormDims {
  int64_t N = 1, C = 1, S = 1;
  DimVector reduce_dims;  // every dim but 1
  DimVector channel_shape;  // [1, C, 1, ...]: a [C] tensor broadcast against the input
};

BatchNormDims batch_norm_dims(const Tensor& input) {
  BatchNormDims d;
  d.N = input.size(0);
  d.C = input.size(1);
  d.channel_shape = DimVector(static_cast<size_t>(input.dim()), 1);
  d.channel_shape[1] = d.C;
  d.reduce_dims.push_back(0);
  for (int64_t k = 2; k < input.dim(); ++k) {
    d.S *= input.size(k);
    d.reduce_dims.push_back(k);
  }
  return d;
}

// training: d/dx = w * invstd * (g - mean(g) - xhat * mean(g * xhat)), xhat = (x - mean) * invstd;
// evaluation: d/dx = g * w * invstd.  d/dw = sum(g * xhat); d/db = sum(g) (sums over all dims but 1)
struct BatchNormBackward : autograd::Node {
  SavedTensor input, weight, mean, invstd;  // mean, invstd: [C], batch or running statistics
  bool training = true;
  double eps = 1e-5;
  const char* name() const override { return "BatchNormBackward"; }

  TensorList apply(TensorList&& g) override {
    Tensor x = input.unpack(this), w = weight.unpack(this);
    Tensor m = mean.unpack(this), is = invstd.unpack(this);
    BatchNormDims d = batch_norm_dims(x);
    if (autograd::any_requires_grad(g[0], x, w)) return composite(g[0], x, w, m, is, d);
    Tensor gc = contiguous_data(g[0]), xc = contiguous_data(x), mc = contiguous_data(m);
    Tensor gx, gw, gb, sum_g, sum_gx;
    bool need_sums = training ? needs_input_grad(0) || needs_input_grad(1) || needs_input_grad(2)
                              : needs_input_grad(1) || needs_input_grad(2);
    if (need_sums) {
      sum_g = empty({d.C}, x.options());
      sum_gx = empty({d.C}, x.options());
      if (x.numel() > 0) {
        batch_norm_grad_sums_stub(x.device().type, sum_g, sum_gx, gc, xc, mc, d.N, d.C, d.S, training);
      } else {
        sum_g.zero_();
        sum_gx.zero_();
      }
    }
    if (needs_input_grad(0)) {
      Tensor k = w.defined() ? w * is : is;  // dy/dx at fixed statistics
      gx = empty(x.sizes(), x.options());
      if (x.numel() > 0 && !training) {
        channel_affine_stub(x.device().type, gx, gc, k, Tensor(), Tensor(), Tensor(),
                            zeros({d.C}, x.options()), d.N, d.C, d.S);
      } else if (x.numel() > 0) {
        // gx = g * k + (x - mean) * kx + k0 with kx = -k * invstd^2 * sum(g (x - mean)) / M and
        // k0 = -k * sum(g) / M.
        double inv_m = 1.0 / static_cast<double>(d.N * d.S);
        // NB: the check reads k on the host: on a device it would wait for the stream, so there the
        // fused form runs always.
        if (x.device().type != DeviceType::CPU || all(isfinite(k)).item<bool>()) {
          Tensor kx = k * is * is * sum_gx * -inv_m;
          Tensor k0 = k * sum_g * -inv_m;
          channel_affine_stub(x.device().type, gx, gc, k, xc, mc, kx, k0, d.N, d.C, d.S);
        } else {
          // NB: an infinite weight scales the centred gradient last, as PyTorch's (g - mean(g) - (x -
          // mean) * proj) * k: +-inf there, where k times each term apart gives inf - inf = NaN.
          Tensor ones = ember::ones({d.C}, x.options());
          channel_affine_stub(x.device().type, gx, gc, ones, xc, mc, is * is * sum_gx * -inv_m, sum_g * -inv_m,
                              d.N, d.C, d.S);
          channel_affine_stub(x.device().type, gx, gx, k, Tensor(), Tensor(), Tensor(), zeros({d.C}, x.options()),
                              d.N, d.C, d.S);
        }
      }
    }
    if (needs_input_grad(1)) gw = sum_gx * is;
    if (needs_input_grad(2)) gb = sum_g;
    return {gx, gw, gb};
  }

  // The same gradients from differentiable ops (create_graph).
  TensorList composite(const Tensor& g, const Tensor& x, const Tensor& w, const Tensor& m,
                       const Tensor& is, const BatchNormDims& d) {
    Tensor mean_b, invstd_b;
    if (training) {
      mean_b = ember::mean(x, d.reduce_dims, true);
      Tensor xc = x - mean_b;
      invstd_b = rsqrt(ember::mean(xc * xc, d.reduce_dims, true) + eps);
    } else {
      mean_b = reshape(m, d.channel_shape);
      invstd_b = reshape(is, d.channel_shape);
    }
    Tensor xhat = (x - mean_b) * invstd_b;
    Tensor gx, gw, gb;
    if (needs_input_grad(0)) {
      Tensor gy = w.defined() ? g * reshape(w, d.channel_shape) : g;
      if (training)
        gx = invstd_b * (gy - ember::mean(gy, d.reduce_dims, true) -
                         xhat * ember::mean(gy * xhat, d.reduce_dims, true));
      else
        gx = gy * invstd_b;
    }
    if (needs_input_grad(1)) gw = reshape(sum(g * xhat, d.reduce_dims), {d.C});
    if (needs_input_grad(2)) gb = reshape(sum(g, d.reduce_dims), {d.C});
    return {gx, gw, gb};
  }

  void release_saved() override {
    input.reset();
    weight.reset();
    mean.reset();
    invstd.reset();
  }
};

// ---- layer_norm

// d/dx = rstd * (gy - mean(gy) - xhat * mean(gy * xhat)), gy = g * w, xhat = (x - mean) * rstd
// (means over the normalized dims); d/dw = sum(g * xhat); d/db = sum(g) (sums over the other dims)
struct LayerNormBackward : autograd::Node {
  SavedTensor input, weight, mean, rstd;  // mean, rstd: one per normalized row
  int64_t normalized_dims = 1;
  double eps = 1e-5;
  const char* name() const override { return "LayerNormBackward"; }

  TensorList apply(TensorList&& g) override {
    Tensor x = input.unpack(this), w = weight.unpack(this);
    if (autograd::any_requires_grad(g[0], x, w)) return composite(g[0], x, w);
    Tensor gx, gw, gb;
    if (needs_input_grad(0)) gx = empty(x.sizes(), x.options());
    IntArrayRef pshape(x.sizes().data() + (x.dim() - normalized_dims), static_cast<size_t>(normalized_dims));
    if (needs_input_grad(1)) gw = empty(pshape, x.options());
    if (needs_input_grad(2)) gb = empty(pshape, x.options());
    if (x.numel() > 0) {
      layer_norm_backward_stub(x.device().type, gx, gw, gb, contiguous_data(g[0]), contiguous_data(x),
                               mean.unpack(this), rstd.unpack(this), w.defined() ? contiguous_data(w) : w, eps);
    } else {
      if (gw.defined()) gw.zero_();
      if (gb.defined()) gb.zero_();
    }
    return {gx, gw, gb};
  }

  TensorList composite(const Tensor& g, const Tensor& x, const Tensor& w) {
    DimVector norm_dims, lead_dims;
    for (int64_t k = 0; k < x.dim(); ++k) (k < x.dim() - normalized_dims ? lead_dims : norm_dims).push_back(k);
    Tensor xc = x - ember::mean(x, norm_dims, true);
    Tensor rs = rsqrt(ember::mean(xc * xc, norm_dims, true) + eps);
    Tensor xhat = xc * rs;
    // NB: sum over no dims would mean all dims here; an input of exactly normalized_shape has
    // no leading dims to sum.
    auto sum_lead = [&](const Tensor& t) { return lead_dims.empty() ? t : sum(t, lead_dims); };
    Tensor gx, gw, gb;
    if (needs_input_grad(0)) {
      Tensor gy = w.defined() ? g * w : g;
      gx = rs * (gy - ember::mean(gy, norm_dims, true) - xhat * ember::mean(gy * xhat, norm_dims, true));
    }
    if (needs_input_grad(1)) gw = sum_lead(g * xhat);
    if (needs_input_grad(2)) gb = sum_lead(g);
    return {gx, gw, gb};
  }

  void release_saved() override {
    input.reset();
    weight.reset();
    mean.reset();
    rstd.reset();
  }
};

}  // namespace

Tensor impl_batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                       const Tensor& bias, bool training, double momentum, double eps) {
  if (detail::float32_params_of_16bit_input(input, {running_mean, running_var, weight, bias}))
    return to(batch_norm(to(input, kFloat32), running_mean, running_var, weight, bias, training, momentum, eps),
              input.dtype());
  check_floating(input, "batch_norm");
  EMBER_CHECK_VALUE(input.dim() >= 2, "batch_norm: expected an input of shape [N, C] or [N, C, *], got ",
                    input.sizes());
  BatchNormDims d = batch_norm_dims(input);
  DimVector cshape{d.C};
  check_param(weight, input, cshape, "batch_norm", "weight");
  check_param(bias, input, cshape, "batch_norm", "bias");
  check_param(running_mean, input, cshape, "batch_norm", "running_mean");
  check_param(running_var, input, cshape, "batch_norm", "running_var");
  EMBER_CHECK_VALUE(running_mean.defined() == running_var.defined(),
                    "batch_norm: running_mean and running_var must both be given or both be undefined");
  EMBER_CHECK_VALUE(training || running_mean.defined(),
                    "batch_norm: running_mean and running_var are required when training is false");
  if (training)
    EMBER_CHECK_VALUE(d.N * d.S > 1, "batch_norm: expected more than 1 value per channel when training, got input ",
                      input.sizes());
  return detail::batch_norm_checked(input, running_mean, running_var, weight, bias, training, momentum, eps);
}

namespace detail {

bool float32_params_of_16bit_input(const Tensor& input, std::initializer_list<std::reference_wrapper<const Tensor>> params) {
  if (!input.defined() || !is_16bit_float(input.dtype())) return false;
  bool any = false;
  for (const Tensor& p : params) {
    if (!p.defined()) continue;
    if (p.dtype() != kFloat32) return false;
    any = true;
  }
  return any;
}

Tensor batch_norm_checked(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                          const Tensor& weight, const Tensor& bias, bool training, double momentum, double eps) {
  BatchNormDims d = batch_norm_dims(input);
  DimVector cshape{d.C};
  Tensor x = contiguous_data(input);
  Tensor mean, invstd;
  Tensor out = empty(input.sizes(), input.options());
  {
    autograd::NoGradGuard no_grad;
    if (training) {
      mean = empty(cshape, input.options());
      Tensor var = empty(cshape, input.options());
      batch_norm_stats_stub(input.device().type, mean, var, x, d.N, d.C, d.S);
      invstd = rsqrt(var + eps);
      if (running_mean.defined()) {
        double m = static_cast<double>(d.N * d.S);
        running_mean.mul_(1 - momentum).add_(mean, momentum);
        running_var.mul_(1 - momentum).add_(var, momentum * m / (m - 1));  // unbiased
      }
    } else {
      mean = running_mean;
      invstd = rsqrt(running_var + eps);
    }
    // y = (x - mean) * scale + b with scale = w * invstd. NB: not x * scale + (b - mean * scale),
    // one multiply fewer, whose fused multiply-add leaves a constant channel's rounding error
    // (about 1e-6 after the 1 / sqrt(eps) of a zero variance) where PyTorch gives 0.
    Tensor scale = weight.defined() ? weight * invstd : invstd;
    // The kernel reads [C] runs: the caller's bias and running mean may be strided views.
    Tensor shift = bias.defined() ? contiguous_data(bias) : zeros_like(invstd);
    if (input.numel() > 0)
      channel_affine_stub(input.device().type, out, Tensor(), Tensor(), x, contiguous_data(mean), contiguous_data(scale),
                          shift, d.N, d.C, d.S);
  }
  if (autograd::any_requires_grad(input, weight, bias)) {
    auto node = autograd::make_node<BatchNormBackward>(input, weight, bias);
    node->training = training;
    node->eps = eps;
    node->input = SavedTensor(input);
    node->weight = SavedTensor(weight);
    node->mean = SavedTensor(mean);
    node->invstd = SavedTensor(invstd);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace detail

Tensor impl_layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                       double eps) {
  if (autocast::applies("layer_norm", input))
    return autocast::run("layer_norm", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return layer_norm(cast(input), normalized_shape, cast(weight), cast(bias), eps);
    });
  if (detail::float32_params_of_16bit_input(input, {weight, bias}))
    return to(layer_norm(to(input, kFloat32), normalized_shape, weight, bias, eps), input.dtype());
  check_floating(input, "layer_norm");
  auto k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK_VALUE(k >= 1, "layer_norm: normalized_shape must have at least one dim, got []");
  bool match = k <= input.dim();
  for (int64_t i = 0; match && i < k; ++i)
    match = input.size(input.dim() - k + i) == normalized_shape[static_cast<size_t>(i)];
  EMBER_CHECK_VALUE(match, "layer_norm: normalized_shape ", normalized_shape,
                    " does not match the last dims of input ", input.sizes());
  check_param(weight, input, normalized_shape, "layer_norm", "weight");
  check_param(bias, input, normalized_shape, "layer_norm", "bias");
  int64_t D = numel_of(normalized_shape);
  int64_t R = D == 0 ? 0 : input.numel() / D;
  Tensor out = empty(input.sizes(), input.options());
  Tensor mean = empty({R}, input.options()), rstd = empty({R}, input.options());
  if (input.numel() > 0)
    layer_norm_stub(input.device().type, out, mean, rstd, contiguous_data(input),
                    weight.defined() ? contiguous_data(weight) : weight,
                    bias.defined() ? contiguous_data(bias) : bias, eps);
  if (autograd::any_requires_grad(input, weight, bias)) {
    auto node = autograd::make_node<LayerNormBackward>(input, weight, bias);
    node->normalized_dims = k;
    node->eps = eps;
    node->input = SavedTensor(input);
    node->weight = SavedTensor(weight);
    node->mean = SavedTensor(mean);
    node->rstd = SavedTensor(rstd);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
