#include "ember/core/kernels/unary.h"

namespace ember::detail {

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Log: return "log";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Rsqrt: return "rsqrt";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Sign: return "sign";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Sigmoid: return "sigmoid";
    case UnaryOp::Relu: return "relu";
    case UnaryOp::Gelu: return "gelu";
    case UnaryOp::GeluTanh: return "gelu(approximate='tanh')";
    case UnaryOp::LeakyRelu: return "leaky_relu";
    case UnaryOp::Clamp: return "clamp";
    case UnaryOp::PowScalar: return "pow";
    case UnaryOp::Erf: return "erf";
  }
  return "unary op";
}

}  // namespace ember::detail
