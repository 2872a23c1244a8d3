#include "ember/ops/gamma_grad.h"

#include "ember/autograd/function_node.h"
#include "ember/core/factory.h"
#include "ember/core/math/gamma_grad.h"
#include "ember/ops/ops.h"

namespace ember {

Tensor standard_gamma_grad(const Tensor& alpha, const Tensor& z) {
  EMBER_CHECK_TYPE(is_floating(alpha.dtype()) && is_floating(z.dtype()),
                   "_standard_gamma_grad: alpha and z must be floating, got ", alpha.dtype(), " and ", z.dtype());
  const DimVector shape = broadcast_shapes(alpha.sizes(), z.sizes(), "_standard_gamma_grad");
  Tensor a = expand(alpha.detach(), shape).to(kFloat64).to(Device()).contiguous();
  Tensor x = expand(z.detach(), shape).to(kFloat64).to(Device()).contiguous();
  Tensor out = empty(shape, TensorOptions(kFloat64));
  const double *pa = a.data_ptr<double>(), *px = x.data_ptr<double>();
  double* po = out.data_ptr<double>();
  for (int64_t i = 0; i < out.numel(); ++i) po[i] = special::standard_gamma_grad(pa[i], px[i]);
  out = out.to(z.dtype()).to(z.device());
  autograd::record_function(
      "StandardGammaGradBackward", out, {alpha, z}, {},
      [](const autograd::TensorList&, const autograd::TensorList&, const autograd::Node&) -> autograd::TensorList {
        throw NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.");
      });
  return out;
}

}  // namespace ember
