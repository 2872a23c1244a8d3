// The nn functions a program may hold: those with a backward of their own or helpers outside the
// op table (nn/loss.cpp, nn/activation_functional.cpp, nn/functional.cpp), recorded whole as
// "nn.<name>". A loss's reduction is stored by PyTorch's name ("mean").
#include "ember/jit/arg_decode.h"
#include "ember/jit/op_registry.h"
#include "ember/nn/activation_functional.h"
#include "ember/nn/functional.h"
#include "ember/nn/loss.h"

namespace ember::jit::detail {

namespace {
namespace F = nn::functional;
F::Reduction reduction(const Arg& a) { return F::reduction_from_string(std::string(str(a))); }
}  // namespace

void register_nn_ops(const std::function<void(OpSchema)>& add) {
  using P = std::vector<std::pair<std::string, std::string>>;
  const auto fn = [&](std::string name, P args, std::function<Tensor(const Args&)> run) {
    add({"nn." + name,
         std::move(args),
         {"Tensor"},
         [run = std::move(run)](const Args& a) { return tracing::outputs_of(run(a)); },
         nullptr});
  };
  fn("linear", {{"input", "Tensor"}, {"weight", "Tensor"}, {"bias", "Tensor?"}},
     [](const Args& a) { return F::linear(tensor(a[0]), tensor(a[1]), tensor(a[2])); });
  fn("cross_entropy",
     {{"input", "Tensor"},
      {"target", "Tensor"},
      {"ignore_index", "int"},
      {"reduction", "str"},
      {"label_smoothing", "float"},
      {"weight", "Tensor?"}},
     [](const Args& a) {
       return F::cross_entropy(tensor(a[0]), tensor(a[1]), integer(a[2]), reduction(a[3]), real(a[4]), tensor(a[5]));
     });
  fn("nll_loss",
     {{"input", "Tensor"}, {"target", "Tensor"}, {"ignore_index", "int"}, {"reduction", "str"}, {"weight", "Tensor?"}},
     [](const Args& a) {
       return F::nll_loss(tensor(a[0]), tensor(a[1]), integer(a[2]), reduction(a[3]), tensor(a[4]));
     });
  const P input_target_reduction{{"input", "Tensor"}, {"target", "Tensor"}, {"reduction", "str"}};
  fn("mse_loss", input_target_reduction,
     [](const Args& a) { return F::mse_loss(tensor(a[0]), tensor(a[1]), reduction(a[2])); });
  fn("l1_loss", input_target_reduction,
     [](const Args& a) { return F::l1_loss(tensor(a[0]), tensor(a[1]), reduction(a[2])); });
  fn("smooth_l1_loss", {{"input", "Tensor"}, {"target", "Tensor"}, {"reduction", "str"}, {"beta", "float"}},
     [](const Args& a) { return F::smooth_l1_loss(tensor(a[0]), tensor(a[1]), reduction(a[2]), real(a[3])); });
  fn("huber_loss", {{"input", "Tensor"}, {"target", "Tensor"}, {"reduction", "str"}, {"delta", "float"}},
     [](const Args& a) { return F::huber_loss(tensor(a[0]), tensor(a[1]), reduction(a[2]), real(a[3])); });
  fn("binary_cross_entropy_with_logits",
     {{"input", "Tensor"},
      {"target", "Tensor"},
      {"pos_weight", "Tensor?"},
      {"reduction", "str"},
      {"weight", "Tensor?"}},
     [](const Args& a) {
       return F::binary_cross_entropy_with_logits(tensor(a[0]), tensor(a[1]), tensor(a[2]), reduction(a[3]),
                                                  tensor(a[4]));
     });
  fn("binary_cross_entropy", {{"input", "Tensor"}, {"target", "Tensor"}, {"weight", "Tensor?"}, {"reduction", "str"}},
     [](const Args& a) { return F::binary_cross_entropy(tensor(a[0]), tensor(a[1]), tensor(a[2]), reduction(a[3])); });
  const P input{{"input", "Tensor"}};
  fn("logsigmoid", input, [](const Args& a) { return F::logsigmoid(tensor(a[0])); });
  fn("silu", input, [](const Args& a) { return F::silu(tensor(a[0])); });
  fn("mish", input, [](const Args& a) { return F::mish(tensor(a[0])); });
  fn("selu", input, [](const Args& a) { return F::selu(tensor(a[0])); });
  fn("hardswish", input, [](const Args& a) { return F::hardswish(tensor(a[0])); });
  fn("elu", {{"input", "Tensor"}, {"alpha", "float"}}, [](const Args& a) { return F::elu(tensor(a[0]), real(a[1])); });
  fn("softplus", {{"input", "Tensor"}, {"beta", "float"}, {"threshold", "float"}},
     [](const Args& a) { return F::softplus(tensor(a[0]), real(a[1]), real(a[2])); });
}

}  // namespace ember::jit::detail
