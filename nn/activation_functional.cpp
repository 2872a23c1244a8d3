#include "ember/nn/activation_functional.h"

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/core/tracing.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {
namespace {

using autograd::TensorList;

bool sixteen_bit(const Tensor& t) { return t.dtype() == kFloat16 || t.dtype() == kBFloat16; }

// f(input), computed in float32 for a 16-bit input and rounded back once.
template <typename F>
Tensor in_float32(const Tensor& input, const F& f) {
  return sixteen_bit(input) ? f(input.to(kFloat32)).to(input.dtype()) : f(input);
}

// out = forward(x) with the gradient grad * slope(x) (slope written in differentiable ops).
template <typename Forward, typename Slope>
Tensor pointwise(const char* name, const Tensor& x, const Forward& forward, const Slope& slope) {
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = forward(x);
  }
  autograd::record_function(name, out, {x}, {x},
                            [slope](const TensorList& saved, const TensorList& grads, const autograd::Node&) {
                              return TensorList{slope(saved[0], grads[0])};
                            });
  return out;
}

void check_floating(const Tensor& input, const char* op) {
  EMBER_CHECK_TYPE(is_floating(input.dtype()), "\"", op, "\" not implemented for '", input.dtype(),
                   "': the elu family takes floating tensors");
}

// alpha (e^(rate x) - 1) where x <= 0, x elsewhere; gradient grad rate alpha e^(rate x) where
// x <= 0, grad elsewhere (a NaN too). The exponential sees only the inputs it is picked for, and
// is of the input, not the result + alpha (which is 0 once e^(rate x) is below alpha's rounding).
Tensor exponential_below_zero(const Tensor& input, double alpha, double rate, const char* name) {
  return pointwise(
      name, input,
      [&](const Tensor& x) {
        Tensor below = le(x, 0);
        return where(below, expm1(where(below, x, 0.0) * rate) * alpha, x);
      },
      [alpha, rate](const Tensor& x, const Tensor& g) {
        Tensor below = le(x, 0);
        return where(below, g * (rate * alpha) * exp(where(below, x, 0.0) * rate), g);
      });
}

}  // namespace

Tensor logsigmoid(const Tensor& input) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.logsigmoid", [&] { return logsigmoid(input); }, {tracing::arg(input)});
  if (sixteen_bit(input)) return logsigmoid(input.to(kFloat32)).to(input.dtype());
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = clamp(input, std::nullopt, Scalar(0.0)) - log1p(exp(neg(abs(input))));
  }
  autograd::record_function(
      "LogSigmoidBackward", out, {input}, {input},
      [](const autograd::TensorList& saved, const autograd::TensorList& grads, const autograd::Node&) {
        const Tensor& x = saved[0];
        Tensor z = exp(neg(abs(x)));
        Tensor share = z / (z + 1.0);
        return autograd::TensorList{grads[0] * where(lt(x, 0), 1.0 - share, share)};
      });
  return out;
}

Tensor silu(const Tensor& input) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.silu", [&] { return silu(input); }, {tracing::arg(input)});
  return in_float32(input, [](const Tensor& x) {
    // PyTorch's gradient s (1 + x (1 - s)): the product rule's x s' is inf * 0 = NaN for a large
    // negative x, where the gradient is 0.
    return pointwise(
        "SiluBackward", x, [](const Tensor& v) { return v * sigmoid(v); },
        [](const Tensor& v, const Tensor& g) {
          Tensor s = sigmoid(v);
          return g * s * (1.0 + v * (1.0 - s));
        });
  });
}

Tensor softplus(const Tensor& input, double beta, double threshold) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.softplus", [&] { return softplus(input, beta, threshold); },
                                   {tracing::arg(input), tracing::arg(beta), tracing::arg(threshold)});
  return in_float32(input, [&](const Tensor& x) {
    Tensor scaled = x * beta;
    Tensor linear = gt(scaled, threshold);
    // NB: where, not clamp, keeps the linear part's inputs out of exp: clamp's gradient is 0 at NaN,
    // where PyTorch's softplus gives NaN.
    return where(linear, x, log1p(exp(where(linear, 0.0, scaled))) / beta);
  });
}

Tensor mish(const Tensor& input) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.mish", [&] { return mish(input); }, {tracing::arg(input)});
  return in_float32(input, [](const Tensor& x) {
    // PyTorch's gradient tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2): through autograd, softplus's
    // e^x / (1 + e^x) is inf / inf = NaN for a large x.
    return pointwise(
        "MishBackward", x, [](const Tensor& v) { return v * tanh(softplus(v)); },
        [](const Tensor& v, const Tensor& g) {
          Tensor t = tanh(softplus(v));
          return g * (t + v * sigmoid(v) * (1.0 - t * t));
        });
  });
}

Tensor elu(const Tensor& input, double alpha) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.elu", [&] { return elu(input, alpha); },
                                   {tracing::arg(input), tracing::arg(alpha)});
  check_floating(input, "elu");
  return in_float32(input, [&](const Tensor& x) { return exponential_below_zero(x, alpha, 1.0, "EluBackward"); });
}

Tensor celu(const Tensor& input, double alpha) {
  check_floating(input, "elu");
  EMBER_CHECK_VALUE(alpha != 0, "celu: alpha must not be 0");
  return in_float32(input,
                    [&](const Tensor& x) { return exponential_below_zero(x, alpha, 1.0 / alpha, "CeluBackward"); });
}

Tensor selu(const Tensor& input) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.selu", [&] { return selu(input); }, {tracing::arg(input)});
  check_floating(input, "elu");
  return in_float32(
      input, [](const Tensor& x) { return exponential_below_zero(x, kSeluAlpha, 1.0, "SeluBackward") * kSeluScale; });
}

Tensor relu6(const Tensor& input) { return hardtanh(input, 0.0, 6.0); }

Tensor hardsigmoid(const Tensor& input) {
  return in_float32(input, [](const Tensor& x) { return clamp(x + 3.0, Scalar(0.0), Scalar(6.0)) / 6.0; });
}

Tensor hardswish(const Tensor& input) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.hardswish", [&] { return hardswish(input); }, {tracing::arg(input)});
  return in_float32(input, [](const Tensor& x) {
    return pointwise(
        // NB: PyTorch's order, x * relu6(x + 3) / 6: past 3e38 / 6 the product overflows to inf, as PyTorch's
        "HardswishBackward", x, [](const Tensor& v) { return v * clamp(v + 3.0, Scalar(0.0), Scalar(6.0)) / 6.0; },
        [](const Tensor& v, const Tensor& g) {
          return where(le(v, -3.0), zeros_like(g), where(lt(v, 3.0), g * (v / 3.0 + 0.5), g));
        });
  });
}

Tensor softsign(const Tensor& input) {
  return in_float32(input, [](const Tensor& x) { return x / (abs(x) + 1.0); });
}

Tensor softmin(const Tensor& input, int64_t dim, std::optional<DType> dtype) {
  return softmax(neg(dtype ? input.to(*dtype) : input), dim);
}

Tensor glu(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t n = input.size(dim);
  EMBER_CHECK(n % 2 == 0, "glu: Halving dimension must be even, but dimension ", dim, " is size ", n);
  return in_float32(input, [&](const Tensor& x) {
    std::vector<Tensor> halves = chunk(x, 2, dim);
    return halves[0] * sigmoid(halves[1]);
  });
}

Tensor threshold(const Tensor& input, double threshold, double value) {
  return where(le(input, threshold), full({}, value, TensorOptions(input.dtype()).device(input.device())), input);
}

Tensor tanhshrink(const Tensor& input) {
  return in_float32(input, [](const Tensor& x) {
    // The gradient tanh(x)^2 as that product: autograd's 1 - (1 - tanh(x)^2) cancels (8e-5
    // relative error in float32 at |x| = 0.01).
    return pointwise(
        "TanhshrinkBackward", x, [](const Tensor& v) { return v - tanh(v); },
        [](const Tensor& v, const Tensor& g) {
          Tensor t = tanh(v);
          return g * (t * t);
        });
  });
}

// NB: NaN gives NaN, and its gradient passes (1), as PyTorch's scalar loop gives it; PyTorch's
// vectorized loop gives 0, so its answer depends on where the NaN sits; Ember gives the scalar
// loop's everywhere (hardtanh too).
Tensor softshrink(const Tensor& input, double lambd) {
  EMBER_CHECK_VALUE(lambd >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", lambd, ".");
  Tensor inside = logical_and(ge(input, -lambd), le(input, lambd));
  // NB: the zeros (signed as the input) are a constant: inside the band the gradient is 0, a NaN one too
  return where(inside, (input * 0.0).detach(), where(gt(input, lambd), input - lambd, input + lambd));
}

Tensor hardshrink(const Tensor& input, double lambd) {
  return where(logical_and(ge(input, -lambd), le(input, lambd)), zeros_like(input), input);
}

Tensor rrelu(const Tensor& input, double lower, double upper, bool training, Generator* generator) {
  // NB: x > 0, not >= 0: at 0 the gradient is the slope, as PyTorch's leaky_relu gives it.
  if (!training) return where(gt(input, 0), input, input * ((lower + upper) / 2));
  Tensor slope =
      rand(input.sizes(), TensorOptions(input.dtype()).device(input.device()), generator) * (upper - lower) + lower;
  return where(gt(input, 0), input, input * slope);
}

}  // namespace ember::nn::functional
