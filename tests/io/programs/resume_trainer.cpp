// The exact-resume test's trainer: a small classifier with Dropout, mini-batches shuffled each
// epoch by a dedicated data Generator, Adam and a warmup-cosine schedule. It resumes from the
// newest checkpoint in <ckpt_dir> if there is one, trains until step <stop_step>, saves a
// training-state checkpoint there and writes the final training state to <result_path>.
//   resume_trainer <ckpt_dir> <stop_step> <result_path>
// Prints "fresh" or "resumed <step>", then "stopped <step>".
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "ember/ember.h"
#include "ember/io/checkpoint_manager.h"
#include "ember/io/training_state.h"

using namespace ember;

namespace {

constexpr int64_t kSamples = 40, kFeatures = 6, kClasses = 3, kBatch = 8;
constexpr int64_t kBatchesPerEpoch = kSamples / kBatch;
constexpr int64_t kTotalSteps = 16;  // the schedule's length, whatever stop_step is

int run(const std::string& ckpt_dir, int64_t stop_step, const std::string& result_path) {
  io::CheckpointManager manager(ckpt_dir, 2);
  std::optional<io::CheckpointManager::Restored> restored = manager.restore();
  // NB: a resumed run seeds everything differently on purpose: only the checkpoint may make it
  // reproduce the original run.
  const uint64_t seed = restored ? 999 : 0;
  manual_seed(seed);
  Generator data_gen(seed + 7);

  // The data set is fixed (its own generator, not part of the training state).
  Generator data_set_gen(11);
  Tensor x = randn({kSamples, kFeatures}, {}, &data_set_gen);
  Tensor y = randint(0, kClasses, {kSamples}, TensorOptions(kInt64), &data_set_gen);

  auto model = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(nn::LinearOptions{kFeatures, 16}), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Dropout>(0.3), std::make_shared<nn::Linear>(nn::LinearOptions{16, kClasses})});
  optim::Adam adam(model->named_parameters(), {.lr = 0.02, .weight_decay = 1e-3});
  optim::WarmupCosineLR sched(adam, 3, kTotalSteps, 1e-4);

  io::TrainingState ts{.model = model.get(), .optimizer = &adam, .scheduler = &sched};
  ts.generators["data"] = &data_gen;
  if (restored) {
    ts.load(restored->state);
    std::printf("resumed %lld\n", static_cast<long long>(ts.step));
  } else {
    std::printf("fresh\n");
  }

  model->train();
  Tensor order = ts.extras.contains("epoch_order") ? ts.extras.at("epoch_order").as_tensor() : Tensor();
  for (; ts.step < stop_step; ++ts.step) {
    ts.epoch = ts.step / kBatchesPerEpoch;
    const int64_t pos = ts.step % kBatchesPerEpoch;
    if (pos == 0) order = randperm(kSamples, &data_gen);
    Tensor idx = order.slice(0, pos * kBatch, (pos + 1) * kBatch);
    Tensor loss = nn::functional::cross_entropy((*model)(x.index_select(0, idx)), y.index_select(0, idx));
    adam.zero_grad();
    loss.backward();
    adam.step();
    sched.step();
  }
  // The current epoch's order: a run resumed mid-epoch must finish the same epoch.
  ts.extras.set("epoch_order", order);
  io::Value state = ts.to_value();
  manager.save(state, ts.step);
  io::save(state, result_path);
  std::printf("stopped %lld\n", static_cast<long long>(ts.step));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <ckpt_dir> <stop_step> <result_path>\n", argv[0]);
    return 2;
  }
  try {
    return run(argv[1], std::atoll(argv[2]), argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resume_trainer: %s\n", e.what());
    return 1;
  }
}
