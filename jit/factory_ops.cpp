// The factories a program may hold (core/factory.cpp records them when a forward calls them):
// full (zeros, ones, scalar_tensor and the *_like forms), arange, linspace, logspace, eye and the
// random draws, each with the dtype and device it made. Replayed, a random one draws from the
// default generator, as a dropout node does.
#include "ember/core/factory.h"
#include "ember/jit/arg_decode.h"
#include "ember/jit/op_registry.h"

namespace ember::jit::detail {

void register_factory_ops(const std::function<void(OpSchema)>& add) {
  using P = std::vector<std::pair<std::string, std::string>>;
  const auto factory = [&](std::string name, P args, std::function<Tensor(const Args&, TensorOptions)> run) {
    const size_t n = args.size();
    args.emplace_back("dtype", "ScalarType");
    args.emplace_back("device", "Device");
    add({"factory." + name,
         std::move(args),
         {"Tensor"},
         [n, run = std::move(run)](const Args& a) {
           return tracing::outputs_of(run(a, TensorOptions(dtype(a[n])).device(device(a[n + 1]))));
         },
         nullptr});
  };
  factory("full", {{"size", "int[]"}, {"fill_value", "Scalar"}},
          [](const Args& a, TensorOptions o) { return full(ints(a[0]), scalar(a[1]), o); });
  factory("arange", {{"start", "Scalar"}, {"end", "Scalar"}, {"step", "Scalar"}},
          [](const Args& a, TensorOptions o) { return arange(scalar(a[0]), scalar(a[1]), scalar(a[2]), o); });
  factory("linspace", {{"start", "float"}, {"end", "float"}, {"steps", "int"}},
          [](const Args& a, TensorOptions o) { return linspace(real(a[0]), real(a[1]), integer(a[2]), o); });
  factory(
      "logspace", {{"start", "float"}, {"end", "float"}, {"steps", "int"}, {"base", "float"}},
      [](const Args& a, TensorOptions o) { return logspace(real(a[0]), real(a[1]), integer(a[2]), real(a[3]), o); });
  factory("eye", {{"n", "int"}, {"m", "int"}},
          [](const Args& a, TensorOptions o) { return eye(integer(a[0]), integer(a[1]), o); });
  factory("rand", {{"size", "int[]"}}, [](const Args& a, TensorOptions o) { return rand(ints(a[0]), o); });
  factory("randn", {{"size", "int[]"}}, [](const Args& a, TensorOptions o) { return randn(ints(a[0]), o); });
  factory("randint", {{"low", "int"}, {"high", "int"}, {"size", "int[]"}},
          [](const Args& a, TensorOptions o) { return randint(integer(a[0]), integer(a[1]), ints(a[2]), o); });
  factory("randperm", {{"n", "int"}}, [](const Args& a, TensorOptions) { return randperm(integer(a[0])); });
}

}  // namespace ember::jit::detail
