// Bringing a PyTorch training checkpoint into Ember and training on: the model's state_dict and
// Adam's state come from a torch.save file (read without PyTorch, and without running its
// pickle); PyTorch keys the optimizer's state by position, Ember by name. See README.md.
//   pytorch_import CHECKPOINT.pt REFERENCE.safetensors
#include <cstdio>
#include <string>
#include <vector>

#include <ember/ember.h>

using namespace ember;

// The same network as the PyTorch script that wrote the checkpoint (same names, same order):
//   class Mlp(nn.Module): fc1 = Linear(4, 8); fc2 = Linear(8, 3); forward: fc2(tanh(fc1(x)))
struct Mlp : nn::Module {
  std::shared_ptr<nn::Linear> fc1 = register_module("fc1", std::make_shared<nn::Linear>(4, 8));
  std::shared_ptr<nn::Linear> fc2 = register_module("fc2", std::make_shared<nn::Linear>(8, 3));
  Tensor forward(const Tensor& x) override { return (*fc2)(tanh((*fc1)(x))); }
};

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: pytorch_import CHECKPOINT.pt REFERENCE.safetensors\n");
    return 2;
  }
  // {"model": state_dict, "optimizer": optimizer.state_dict(), "epoch": 3}, as torch.save wrote it.
  io::Value ckpt = io::load(argv[1]);
  std::printf("checkpoint: epoch %lld, keys", static_cast<long long>(ckpt.at("epoch").as_int()));
  for (const io::Key& key : ckpt.at("model").keys()) std::printf(" %s", key.str().c_str());
  std::printf("\n");

  Mlp model;
  nn::LoadResult loaded = io::load_into(model, ckpt.at("model"));  // strict: every key matches
  std::printf("model load report: %s\n", loaded.ok() ? "clean" : loaded.str().c_str());

  // PyTorch numbered the parameters 0, 1, 2, ... in model.parameters() order; the names in the
  // same order turn that into Ember's name-keyed state.
  std::vector<std::string> names;
  for (const auto& [name, p] : model.named_parameters()) names.push_back(name);
  io::Value state = io::import_torch_optimizer(ckpt.at("optimizer"), names, "Adam");
  optim::Adam adam(model.named_parameters());  // lr, betas, eps, weight decay come from the file
  optim::OptimizerLoadReport report = io::load_into(adam, state, /*strict=*/true);
  const optim::Hyperparams& hp = adam.param_groups()[0].options;
  std::printf("optimizer: lr %g, betas (%g, %g), step %g, report %s\n", hp.number("lr"),
              hp.pair("betas").first, hp.pair("betas").second,
              adam.state().at("fc1.weight").at("step").item<double>(),
              report.ok() ? "clean" : report.str().c_str());

  // The batch PyTorch trained on, and where its parameters were after 4 more steps.
  io::Value ref = io::load(argv[2]);
  Tensor data = ref.at("ref/data").as_tensor(), target = ref.at("ref/target").as_tensor();
  for (int step = 1; step <= 4; ++step) {
    adam.zero_grad();
    Tensor loss = nn::functional::mse_loss(model(data), target);
    loss.backward();
    adam.step();
    std::printf("step %d  loss %.6f\n", step, loss.item<double>());
  }
  double worst = 0;
  for (const auto& [name, p] : model.named_parameters())
    worst = std::max(worst, p.sub(ref.at("ref/final/" + name).as_tensor()).abs().max().item<double>());
  std::printf("largest difference from PyTorch's parameters after the same 4 steps: %.1e\n", worst);
  bool ok = loaded.ok() && report.ok() && worst < 2e-6;
  std::printf("tutorial %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
