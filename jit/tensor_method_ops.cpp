// The Tensor methods a program may hold besides the table's: in-place writes and views (ops/inplace.cpp,
// ops/inplace_view.cpp) and detach. Each returns self (detach a new tensor), which the program
// names anew, so later ops read the written value.
#include "ember/jit/arg_decode.h"
#include "ember/jit/op_registry.h"

namespace ember::jit::detail {

namespace {
std::vector<Arg> self_of(const Tensor& t) { return {Arg(t)}; }
}  // namespace

void register_tensor_method_ops(const std::function<void(OpSchema)>& add) {
  const auto method = [&](std::string name, std::vector<std::pair<std::string, std::string>> args,
                          std::function<Tensor(const Args&)> run) {
    add({std::move(name),
         std::move(args),
         {"Tensor"},
         [run = std::move(run)](const Args& a) { return self_of(run(a)); },
         nullptr});
  };
  using P = std::vector<std::pair<std::string, std::string>>;
  const P self_other{{"self", "Tensor"}, {"other", "Tensor"}};
  const P self_other_alpha{{"self", "Tensor"}, {"other", "Tensor"}, {"alpha", "Scalar"}};
  method("Tensor.add_", self_other_alpha, [](const Args& a) { return tensor(a[0]).add_(tensor(a[1]), scalar(a[2])); });
  method("Tensor.sub_", self_other_alpha, [](const Args& a) { return tensor(a[0]).sub_(tensor(a[1]), scalar(a[2])); });
  method("Tensor.mul_", self_other, [](const Args& a) { return tensor(a[0]).mul_(tensor(a[1])); });
  method("Tensor.div_", self_other, [](const Args& a) { return tensor(a[0]).div_(tensor(a[1])); });
  method("Tensor.fill_", {{"self", "Tensor"}, {"value", "Scalar"}},
         [](const Args& a) { return tensor(a[0]).fill_(scalar(a[1])); });
  method("Tensor.copy_", {{"self", "Tensor"}, {"src", "Tensor"}},
         [](const Args& a) { return tensor(a[0]).copy_(tensor(a[1])); });
  method("Tensor.clamp_", {{"self", "Tensor"}, {"min", "Scalar?"}, {"max", "Scalar?"}},
         [](const Args& a) { return tensor(a[0]).clamp_(opt_scalar(a[1]), opt_scalar(a[2])); });
  method("Tensor.index_put_",
         {{"self", "Tensor"}, {"indices", "Tensor[]"}, {"values", "Tensor"}, {"accumulate", "bool"}},
         [](const Args& a) { return tensor(a[0]).index_put_(tensors(a[1]), tensor(a[2]), boolean(a[3])); });
  method("Tensor.t_", {{"self", "Tensor"}}, [](const Args& a) { return tensor(a[0]).t_(); });
  method("Tensor.transpose_", {{"self", "Tensor"}, {"dim0", "int"}, {"dim1", "int"}},
         [](const Args& a) { return tensor(a[0]).transpose_(integer(a[1]), integer(a[2])); });
  method("Tensor.unsqueeze_", {{"self", "Tensor"}, {"dim", "int"}},
         [](const Args& a) { return tensor(a[0]).unsqueeze_(integer(a[1])); });
  method("Tensor.squeeze_", {{"self", "Tensor"}, {"dim", "int?"}},
         [](const Args& a) { return tensor(a[0]).squeeze_(opt_integer(a[1])); });
  method("Tensor.detach_", {{"self", "Tensor"}}, [](const Args& a) { return tensor(a[0]).detach_(); });
  method("Tensor.detach", {{"self", "Tensor"}}, [](const Args& a) { return tensor(a[0]).detach(); });
}

}  // namespace ember::jit::detail
