// CPU kernels for elementwise unary ops (ops/unary.h).
#include "ember/core/cpu/loops.h"
#include "ember/ops/unary.h"

namespace ember::cpu {
namespace {

void cpu_unary(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  (void)p;
  visit_compute_dtype(out.dtype(), "unary", [&]<typename T>(type_tag<T>) {
    if constexpr (!std::is_same_v<T, bool>) {
      switch (op) {
        case UnaryOp::Neg:
          return unary_kernel<T, T>(out, in, [](const auto& x) { return -x; });
        default:
          break;
      }
    }
    EMBER_CHECK_AS(NotImplementedError, false, "unary op ", static_cast<int>(op),
                   " has no CPU kernel for ", out.dtype());
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(unary_stub, DeviceType::CPU, &cpu_unary);

}  // namespace ember::cpu
