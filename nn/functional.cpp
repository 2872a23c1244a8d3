#include "ember/nn/functional.h"

#include "ember/core/factory.h"
#include "ember/core/tracing.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/matmul.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.linear", [&] { return linear(x, weight, bias); },
                                   {tracing::arg(x), tracing::arg(weight), tracing::arg(bias)});
  if (autocast::applies("linear", x))
    return autocast::run("linear", {x, weight, bias}, [&](const autocast::Cast& cast) { return linear(cast(x), cast(weight), cast(bias)); });
  EMBER_CHECK_VALUE(weight.dim() == 2, "linear: weight must be 2-D [out, in], got ", weight.sizes());
  EMBER_CHECK_VALUE(x.dim() >= 1 && x.size(-1) == weight.size(1), "linear: input of shape ",
                    x.sizes(), " does not match weight of shape ", weight.sizes(),
                    " (expected last input dim ", weight.size(1), ")");
  // NB: rows folded into one addmm with the bias written first (PyTorch's form): a separate bias add
  // was a pass over every output, 4% of a small GPT's training step.
  if (bias.defined() && x.dim() >= 2 && bias.dim() <= 1) {
    DimVector out_shape = x.sizes().vec();
    out_shape.back() = weight.size(0);
    return reshape(matmul_add(bias, fold_rows(x), weight.t()), out_shape);
  }
  Tensor y = matmul(x, weight.t());
  return bias.defined() ? y + bias : y;
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  if (autocast::applies("bilinear", input1))
    return autocast::run("bilinear", {input1, input2, weight, bias}, [&](const autocast::Cast& cast) {
      return bilinear(cast(input1), cast(input2), cast(weight), cast(bias));
    });
  EMBER_CHECK(weight.dim() == 3, "bilinear(): weight must be 3-D [out, in1, in2], got ", weight.sizes());
  EMBER_CHECK(input1.dim() >= 1 && input2.dim() == input1.dim() && input1.size(-1) == weight.size(1) &&
                  input2.size(-1) == weight.size(2),
              "bilinear(): input1 ", input1.sizes(), " and input2 ", input2.sizes(),
              " must have the same number of dims and last dims ", weight.size(1), " and ", weight.size(2), " (weight ",
              weight.sizes(), ")");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)), "bilinear(): expected bias of ",
              weight.size(0), " elements, got ", bias.sizes());
  Tensor out = einsum("...i,oij,...j->...o", {input1, weight, input2});
  return bias.defined() ? out + bias : out;
}

namespace {
// ||x|| along dim (kept), raised to eps without changing its gradient: PyTorch clamps the norm in
// place under no_grad, so the gradient is the unclamped norm's (0 at a zero vector).
Tensor clamped_norm(const Tensor& x, int64_t dim, double eps) {
  Tensor n = norm(x, 2, {dim}, true);
  // NB: where(), not n + (clamped - n), which makes an infinite norm inf - inf = NaN.
  return where(lt(n.detach(), eps), n - n.detach() + eps, n);
}
}  // namespace

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  if (autocast::applies("cosine_similarity", {x1, x2}))
    return autocast::run("cosine_similarity", {x1, x2},
                         [&](const autocast::Cast& cast) { return cosine_similarity(cast(x1), cast(x2), dim, eps); });
  const DType common = result_type(x1, x2);
  EMBER_CHECK(is_floating(common) || is_complex(common),
              "expected common dtype to be floating point, yet common dtype is ", torch_type_name(common));
  auto floating = [&](const Tensor& x) { return is_integral(x.dtype()) ? x.to(common) : x; };
  DimVector shape = broadcast_shapes(x1.sizes(), x2.sizes(), "cosine_similarity");
  Tensor a = expand(floating(x1), shape), b = expand(floating(x2), shape);
  return sum((a / clamped_norm(a, dim, eps)) * (b / clamped_norm(b, dim, eps)), {dim});
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK_VALUE(input.dim() >= 3, "Expected 3D or higher dimensionality input (got ", input.dim(), " dimensions)");
  EMBER_CHECK_VALUE(size > 0, "local_response_norm: size must be positive, got ", size);
  const int64_t n = input.size(0), c = input.size(1);
  if (input.numel() == 0) return input.clone();
  // The channels as the rows of a plane, so a size x 1 window averages neighbouring channels.
  Tensor squares = pad((input * input).reshape({n, 1, c, -1}), {0, 0, size / 2, (size - 1) / 2});
  Tensor div = avg_pool2d(squares, {size, 1}, Size2(1)).reshape(input.sizes());
  return input / pow(div * alpha + k, beta);
}

Tensor gumbel_softmax(const Tensor& logits, double tau, bool hard, double eps, int64_t dim) {
  EMBER_CHECK(is_floating(logits.dtype()), "gumbel_softmax: expected floating logits, got ", logits.dtype());
  Tensor u = rand(logits.sizes(), TensorOptions(logits.dtype()).device(logits.device()));
  Tensor gumbels = -log(-log(u + eps) + eps);  // NB: eps keeps log(0) out for u == 0
  Tensor soft = softmax((logits + gumbels) / tau, dim);
  if (!hard) return soft;
  Tensor index = argmax(soft, dim, true);
  Tensor one_hot =
      scatter_add(zeros_like(soft), dim, index, ones(index.sizes(), TensorOptions(soft.dtype()).device(soft.device())));
  return one_hot - soft.detach() + soft;
}

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  return div(input, clamp(linalg_vector_norm(input, p, {dim}, true), Scalar(eps), std::nullopt));
}

}  // namespace ember::nn::functional
