// Incremental training: a model is trained and checkpointed (weights and Adam state), then grows a
// second head. The old checkpoint loads into the new model non-strictly, the report names what is
// new, Adam's moments carry over by parameter name (the new head starts fresh, and its report says
// so), and fine-tuning continues from where training stopped instead of from scratch.
#include <cstdio>
#include <string>

#include <ember/ember.h>

using namespace ember;

namespace {

constexpr int64_t kIn = 4, kHidden = 32, kClasses = 3, kN = 256;

// The first version: a shared trunk and one regression head.
struct Regressor : nn::Module {
  Regressor() : nn::Module("Regressor") {
    trunk = register_module("trunk", std::make_shared<nn::Linear>(kIn, kHidden));
    head = register_module("head", std::make_shared<nn::Linear>(kHidden, 1));
  }
  Tensor forward(const Tensor& x) override { return (*head)(tanh((*trunk)(x))); }
  std::shared_ptr<nn::Linear> trunk, head;
};

// The second version: the same trunk and head, plus a classification head ("aux").
struct MultiTask : nn::Module {
  MultiTask() : nn::Module("MultiTask") {
    trunk = register_module("trunk", std::make_shared<nn::Linear>(kIn, kHidden));
    head = register_module("head", std::make_shared<nn::Linear>(kHidden, 1));
    aux = register_module("aux", std::make_shared<nn::Linear>(kHidden, kClasses));
  }
  Tensor forward(const Tensor& x) override { return (*head)(tanh((*trunk)(x))); }
  Tensor classify(const Tensor& x) { return (*aux)(tanh((*trunk)(x))); }
  std::shared_ptr<nn::Linear> trunk, head, aux;
};

float step_count(const optim::Optimizer& opt, const std::string& name) {
  return io::to_value(opt).at("state").at(name).at("step").as_tensor().item<float>();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "regressor.ember";
  manual_seed(0);
  // Synthetic data: y = tanh(2 x0) + x1 * x2 - x3 / 2, and a class: which of x0, x1, x2 is largest.
  Tensor x = randn({kN, kIn});
  Tensor y = (tanh(x.select(1, 0) * 2.0) + x.select(1, 1) * x.select(1, 2) - x.select(1, 3) * 0.5).reshape({kN, 1});
  Tensor label = x.narrow(1, 0, 3).argmax(1);

  // ---- 1. train the first version and checkpoint model + optimizer
  Regressor v1;
  optim::Adam adam(v1.named_parameters(), {.lr = 1e-2});
  double loss_v1 = 0;
  for (int step = 1; step <= 200; ++step) {
    Tensor loss = nn::functional::mse_loss(v1(x), y);
    adam.zero_grad();
    loss.backward();
    adam.step();
    loss_v1 = loss.item<double>();
    if (step % 100 == 0) std::printf("v1 step %3d  mse %.4f\n", step, loss_v1);
  }
  io::save(io::Value::dict({{"model", io::to_value(v1)}, {"optimizer", io::to_value(adam)}, {"step", 200}}), path);
  std::printf("saved %s\n", path.c_str());

  // ---- 2. the grown model: load what the checkpoint has, non-strictly
  io::Value ckpt = io::load(path);
  MultiTask v2;
  nn::LoadResult model_report = io::load_into(v2, ckpt.at("model"), /*strict=*/false);
  std::printf("model load report:\n%s\n", model_report.str().c_str());

  // ---- 3. the optimizer state, by name: trunk and head continue, aux starts fresh
  optim::Adam adam2(v2.named_parameters(), {.lr = 1e-2});
  optim::OptimizerLoadReport opt_report = io::load_into(adam2, ckpt.at("optimizer"));
  std::printf("optimizer load report:\n%s", opt_report.str().c_str());  // str() ends its lines
  std::printf("regression mse right after loading: %.4f (v1 ended at %.4f)\n",
              nn::functional::mse_loss(v2(x), y).item<double>(), loss_v1);

  // ---- 4. fine-tune both heads
  double mse = 0, ce = 0, ce_first = 0;
  for (int step = 1; step <= 100; ++step) {
    Tensor l_reg = nn::functional::mse_loss(v2(x), y);
    Tensor l_cls = nn::functional::cross_entropy(v2.classify(x), label);
    Tensor loss = l_reg + l_cls;
    adam2.zero_grad();
    loss.backward();
    adam2.step();
    mse = l_reg.item<double>();
    ce = l_cls.item<double>();
    if (step == 1) ce_first = ce;
    if (step == 1 || step % 50 == 0) std::printf("v2 step %3d  mse %.4f  cross-entropy %.4f\n", step, mse, ce);
  }
  const float trunk_steps = step_count(adam2, "trunk.weight"), aux_steps = step_count(adam2, "aux.weight");
  std::printf("Adam step counts: trunk.weight %.0f (200 + 100), aux.weight %.0f (fresh)\n", trunk_steps, aux_steps);

  const bool ok = model_report.missing_keys.size() == 2 && model_report.unexpected_keys.empty() &&
                  opt_report.missing.size() == 2 && trunk_steps == 300 && aux_steps == 100 &&
                  ce < ce_first / 2 && mse < loss_v1 * 1.5;
  std::printf("%s\n", ok ? "tutorial OK" : "tutorial FAILED");
  return ok ? 0 : 1;
}
