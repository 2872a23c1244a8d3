// A C++ training loop over a model it has no class for: loads a traced program (ember.jit.save),
// trains it with AdamW on one batch for STEPS steps, and writes a checkpoint of the model and the
// optimizer by parameter name. tests/jit/programs/python_to_cpp.py drives it.
//   program_trainer MODEL.ember DATA.ember OUT.ember      DATA: {"x", "y", "seed", "lr", "steps"}
#include <ember/ember.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: program_trainer MODEL.ember DATA.ember OUT.ember\n");
    return 2;
  }
  try {
    namespace io = ember::io;
    std::shared_ptr<ember::jit::TracedModule> model = ember::jit::load(argv[1]);
    const io::Value data = io::load(argv[2]);
    ember::manual_seed(static_cast<uint64_t>(data.at("seed").as_int()));
    ember::optim::AdamW opt(model->named_parameters(), {.lr = data.at("lr").as_float()});
    const ember::Tensor& x = data.at("x").as_tensor();
    const ember::Tensor& y = data.at("y").as_tensor();
    for (int64_t step = 0; step < data.at("steps").as_int(); ++step) {
      opt.zero_grad();
      ember::nn::functional::cross_entropy(model->forward(x), y).backward();
      opt.step();
    }
    io::save(io::Value::dict({{"model", io::to_value(*model)}, {"optimizer", io::to_value(opt)}}), argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "program_trainer: %s\n", e.what());
    return 1;
  }
  std::printf("program_trainer: ok\n");
  return 0;
}
