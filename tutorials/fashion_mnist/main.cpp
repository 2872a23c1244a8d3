// Fashion-MNIST with an MLP (784-256-128-10) or a small CNN: data::FashionMNIST reads the Debian
// files, data::DataLoader shuffles them with its own generator, Adam with a cosine schedule trains,
// a one-line progress bar reports, the test set is evaluated, and io::CheckpointManager saves an
// io::TrainingState every N steps so that --resume goes on exactly where a run stopped.
//   fashion_mnist --model mlp --epochs 3 --run-dir runs/fashion_mnist
//   fashion_mnist --run-dir runs/fashion_mnist --resume      # after a Ctrl-C or a crash
//   fashion_mnist --model cnn --device cuda                   # the same loop on a GPU
//   ember-run --nproc 2 fashion_mnist --model cnn            # data-parallel: the same global batch
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <ember/ember.h>
#include <ember/io/cereal_archive.h>

using namespace ember;

namespace {

struct Config {
  std::string model = "mlp";
  int64_t epochs = 3;
  int64_t batch_size = 64;
  double lr = 1e-3;
  int64_t limit = 0;  // 0: every sample
  std::string data_root = data::FashionMNIST::kDefaultRoot;
  std::string run_dir = "runs/fashion_mnist";
  int64_t checkpoint_every = 500;
  int64_t keep = 3;
  bool resume = false;
  bool restart = false;
  int64_t stop_after = 0;  // 0: never
  uint64_t seed = 0;
  std::string device = "cpu";
};

// What the run keeps in its checkpoints besides the training state (model, optimizer, schedule,
// generators, counters): the settings that give a saved position its meaning, the position in the
// epoch with the loss and accuracy sums of the batches done so far (so a resumed epoch reports what
// the uninterrupted one would), and the mean training loss of each finished epoch. A plain struct:
// cereal puts it into the checkpoint and brings it back with its types (ember/io/cereal_archive.h).
struct RunState {
  std::string model;
  int64_t batch_size = 0;
  int64_t train_samples = 0;
  int64_t position = 0;  // batches of the current epoch already trained on
  double loss_sum = 0;   // over the samples of those batches
  int64_t correct = 0, seen = 0;
  std::vector<double> epoch_losses;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(CEREAL_NVP(model), CEREAL_NVP(batch_size), CEREAL_NVP(train_samples), CEREAL_NVP(position),
       CEREAL_NVP(loss_sum), CEREAL_NVP(correct), CEREAL_NVP(seen), CEREAL_NVP(epoch_losses));
  }
  bool same_settings(const RunState& o) const {
    return model == o.model && batch_size == o.batch_size && train_samples == o.train_samples;
  }
};

std::shared_ptr<nn::Module> make_model(const std::string& kind) {
  using M = std::shared_ptr<nn::Module>;
  if (kind == "mlp")
    return std::make_shared<nn::Sequential>(std::vector<M>{
        std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(nn::LinearOptions{784, 256}),
        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(nn::LinearOptions{256, 128}),
        std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(nn::LinearOptions{128, 10})});
  return std::make_shared<nn::Sequential>(std::vector<M>{
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 1, .out_channels = 16, .kernel_size = 3, .padding = 1}),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),  // 16 x 14 x 14
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 16, .out_channels = 32, .kernel_size = 3, .padding = 1}),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),  // 32 x 7 x 7
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(nn::LinearOptions{32 * 7 * 7, 128}),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(nn::LinearOptions{128, 10})});
}

/// uint8 images [B, 28, 28] -> float32 [B, 1, 28, 28], standardised with the training set's
/// mean and standard deviation of pixel values (0.2860, 0.3530).
Tensor preprocess(const Tensor& images) {
  return images.to(kFloat32).div(255.0).sub(0.2860).div(0.3530).unsqueeze(1);
}

/// The first `limit` samples (all when limit is 0 or larger than the split).
void take_first(data::FashionMNIST& set, int64_t limit) {
  if (limit <= 0 || limit >= set.size()) return;
  set.images = set.images.narrow(0, 0, limit).contiguous();
  set.labels = set.labels.narrow(0, 0, limit).contiguous();
}

int64_t count_correct(const Tensor& logits, const Tensor& targets) {
  return logits.argmax(1).eq(targets).sum().item<int64_t>();
}

std::string clock_str(double seconds) {
  const int64_t s = std::isfinite(seconds) ? static_cast<int64_t>(seconds + 0.5) : 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return buf;
}

/// One line, rewritten in place on a terminal: epoch, a bar, loss, accuracy, speed, ETA.
class Progress {
 public:
  explicit Progress(int64_t total_steps) : total_(total_steps), tty_(isatty(STDOUT_FILENO)) {}
  void update(int64_t epoch, int64_t epochs, int64_t batch, int64_t batches, int64_t step,
              double loss, double accuracy, int64_t samples, bool force) {
    const auto now = std::chrono::steady_clock::now();
    if (!tty_ && !force) return;
    if (!force && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double per_sec = elapsed > 0 ? samples / elapsed : 0;
    const double steps_per_sec = elapsed > 0 ? (step - first_step_) / elapsed : 0;
    const double eta = steps_per_sec > 0 ? (total_ - step) / steps_per_sec : 0;
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(kWidth * batch / std::max<int64_t>(batches, 1));
    std::string bar(filled, '=');
    if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
    std::printf("%sepoch %lld/%lld [%s] %lld/%lld  loss %.4f  acc %5.1f%%  %6.0f samples/s  ETA %s%s",
                tty_ ? "\r" : "", static_cast<long long>(epoch + 1), static_cast<long long>(epochs),
                bar.c_str(), static_cast<long long>(batch), static_cast<long long>(batches), loss,
                100 * accuracy, per_sec, clock_str(eta).c_str(), tty_ ? "\033[K" : "\n");
    std::fflush(stdout);
  }
  void end_line() {
    if (tty_) std::printf("\n");
  }
  void restart_clock(int64_t step) {
    start_ = std::chrono::steady_clock::now();
    first_step_ = step;
  }

 private:
  int64_t total_;
  bool tty_;
  int64_t first_step_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

/// The rows of a global batch that this rank trains on: an equal share of every batch.
Tensor my_share(const Tensor& batch, int rank, int world) {
  const int64_t n = batch.size(0), lo = n * rank / world, hi = n * (rank + 1) / world;
  return world == 1 ? batch : batch.narrow(0, lo, hi - lo);
}

int run(const Config& cfg) {
  // The one change a GPU needs: the model and each batch go to the device. Checkpoints hold host
  // copies, so a run saved on one device resumes on the other.
  const Device device(cfg.device);
  check_device(device, "--device");
  // Under ember-run (torchrun's variables set): one rank per process. Every rank draws the same
  // global batches and trains on its share; DDP averages the gradients, so the model follows the
  // one-process run on the same global batch. Rank 0 prints and writes the checkpoints, which are
  // the one-process run's: either resumes the other.
  const bool data_parallel = std::getenv("WORLD_SIZE") != nullptr;
  if (data_parallel) distributed::init_process_group();
  const int rank = distributed::get_rank(), world = distributed::get_world_size();
  const bool lead = rank == 0;
  manual_seed(cfg.seed);
  data::FashionMNIST train_set(cfg.data_root, /*train=*/true);
  data::FashionMNIST test_set(cfg.data_root, /*train=*/false);
  take_first(train_set, cfg.limit);
  take_first(test_set, cfg.limit);
  if (lead)
    std::printf("Fashion-MNIST: %lld training and %lld test images from %s%s\n",
                static_cast<long long>(train_set.size()), static_cast<long long>(test_set.size()),
                cfg.data_root.c_str(), world > 1 ? detail::str(", ", world, " ranks").c_str() : "");

  data::DataLoader loader(train_set.images, train_set.labels,
                          {.batch_size = cfg.batch_size, .shuffle = true, .seed = cfg.seed + 1});
  std::shared_ptr<nn::Module> model = make_model(cfg.model);
  model->to(device);
  // NB: the optimizer and the checkpoints hold the model's own names ("0.weight"), not DDP's.
  std::shared_ptr<nn::Module> net = model;
  if (world > 1) net = std::make_shared<distributed::DistributedDataParallel>(model);  // rank 0's weights
  optim::Adam adam(model->named_parameters(), {.lr = cfg.lr});
  const int64_t batches = loader.num_batches();
  const int64_t total_steps = cfg.epochs * batches;
  optim::CosineAnnealingLR sched(adam, std::max<int64_t>(total_steps, 1), cfg.lr / 100);

  io::TrainingState ts{.model = model.get(), .optimizer = &adam, .scheduler = &sched};
  ts.generators["data"] = &loader.generator();
  RunState run{.model = cfg.model, .batch_size = cfg.batch_size, .train_samples = train_set.size()};

  // A fresh run must not mix its checkpoints with an older run's.
  namespace fs = std::filesystem;
  if (cfg.restart && fs::exists(cfg.run_dir) && lead) {
    for (const auto& entry : io::CheckpointManager(cfg.run_dir, cfg.keep).checkpoints())
      fs::remove(entry.path);
  }
  if (world > 1) distributed::default_group().barrier()->wait();  // no rank looks before rank 0 cleared
  io::CheckpointManager manager(cfg.run_dir, cfg.keep);
  int64_t first_batch = 0;
  if (cfg.resume) {
    if (auto ckpt = manager.restore()) {
      RunState saved;
      io::cereal_from_value(ckpt->state.at("extras"), saved);
      // What a checkpoint's position means depends on these: a resume must use the same.
      EMBER_CHECK_VALUE(saved.same_settings(run), "--resume: '", ckpt->path,
                        "' is a checkpoint of another configuration: ", io::cereal_to_value(saved).str(),
                        ", this run: ", io::cereal_to_value(run).str());
      ts.load(ckpt->state);
      run = saved;
      first_batch = run.position;
      if (lead)
        std::printf("resumed from step %lld (epoch %lld, batch %lld of %lld) in %s\n",
                  static_cast<long long>(ts.step), static_cast<long long>(ts.epoch + 1),
                  static_cast<long long>(first_batch), static_cast<long long>(batches), ckpt->path.c_str());
    } else if (lead) {
      std::printf("no checkpoint in %s: starting afresh\n", cfg.run_dir.c_str());
    }
  } else if (!manager.checkpoints().empty()) {
    std::fprintf(stderr, "fashion_mnist: %s already holds checkpoints; pass --resume to continue "
                         "that run or --restart to delete them and start over\n", cfg.run_dir.c_str());
    return 2;
  }

  auto save = [&](int64_t epoch) {
    if (!lead) return;  // the replicas are equal: one writer
    ts.epoch = epoch;
    run.position = loader.position();
    ts.extras = io::cereal_to_value(run);
    manager.save(ts.to_value(), ts.step);
  };
  // The batch's loss sum, correct predictions and samples over every rank (each saw its share).
  auto batch_totals = [&](const Tensor& loss, const Tensor& logits, const Tensor& targets) {
    NoGradGuard no_grad;
    const int64_t n = targets.size(0);
    Tensor totals = tensor({loss.item<double>() * n, static_cast<double>(count_correct(logits, targets)),
                            static_cast<double>(n)});
    if (world > 1) distributed::default_group().allreduce(totals)->wait();
    return totals.to_vector<double>();
  };

  Progress progress(lead ? total_steps : 0);
  progress.restart_clock(ts.step);
  double last_loss = NAN;
  int64_t samples_seen = 0;
  for (int64_t epoch = ts.epoch; epoch < cfg.epochs; ++epoch) {
    model->train();
    const bool resumed = epoch == ts.epoch && cfg.resume;
    if (resumed)
      loader.resume_epoch(first_batch);  // the restored generator redraws the saved epoch's order
    else
      loader.start_epoch();
    double& loss_sum = run.loss_sum;
    int64_t &correct = run.correct, &seen = run.seen;
    if (!resumed) loss_sum = 0, correct = seen = 0;
    while (auto batch = loader.next()) {
      const Tensor targets = my_share(batch->targets, rank, world).to(device);
      Tensor logits = (*net)(preprocess(my_share(batch->inputs, rank, world).to(device)));
      Tensor loss = nn::functional::cross_entropy(logits, targets);
      adam.zero_grad();
      loss.backward();
      adam.step();
      sched.step();
      ++ts.step;

      const std::vector<double> totals = batch_totals(loss, logits, targets);
      last_loss = world == 1 ? loss.item<double>() : totals[0] / totals[2];
      loss_sum += totals[0];
      correct += static_cast<int64_t>(totals[1]);
      seen += static_cast<int64_t>(totals[2]);
      samples_seen += static_cast<int64_t>(totals[2]);
      const bool epoch_end = loader.position() == batches;
      if (lead) progress.update(epoch, cfg.epochs, loader.position(), batches, ts.step, loss_sum / seen,
                      static_cast<double>(correct) / seen, samples_seen, epoch_end);
      if (cfg.checkpoint_every > 0 && ts.step % cfg.checkpoint_every == 0) save(epoch);
      if (cfg.stop_after > 0 && ts.step >= cfg.stop_after) {
        if (lead) progress.end_line();
        save(epoch);
        if (lead) std::printf("stopped at step %lld; continue with --resume\n", static_cast<long long>(ts.step));
        return 0;
      }
    }
    if (lead) progress.end_line();
    run.epoch_losses.push_back(loss_sum / seen);
    if (epoch == cfg.epochs - 1) save(epoch);  // the finished run, whatever checkpoint_every is
  }

  // Evaluation: the whole test set in batches, no graph (every rank holds the same model).
  if (!lead) return 0;
  model->eval();
  NoGradGuard no_grad;
  data::DataLoader test_loader(test_set.images, test_set.labels, {.batch_size = 1000});
  test_loader.start_epoch();
  int64_t correct = 0;
  while (auto batch = test_loader.next())
    correct += count_correct((*model)(preprocess(batch->inputs.to(device))), batch->targets.to(device));
  const double accuracy = static_cast<double>(correct) / test_set.size();
  std::printf("test accuracy: %.2f%% (%lld/%lld)\n", 100 * accuracy, static_cast<long long>(correct),
              static_cast<long long>(test_set.size()));
  std::printf("mean training loss per epoch:");
  for (double l : run.epoch_losses) std::printf(" %.4f", l);
  std::printf("\n");
  // NB: printed in full so that a resumed run can be compared with an uninterrupted one.
  std::printf("done: step %lld, last batch loss %.9g, checkpoints in %s\n", static_cast<long long>(ts.step),
              last_loss, cfg.run_dir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  CLI::App app{"Trains an MLP or a small CNN on Fashion-MNIST, with checkpoints and --resume."};
  app.add_option("--model", cfg.model, "mlp (784-256-128-10) or cnn")->check(CLI::IsMember({"mlp", "cnn"}))->capture_default_str();
  app.add_option("--epochs", cfg.epochs, "Training epochs")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--batch-size", cfg.batch_size, "Mini-batch size")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--lr", cfg.lr, "Adam's learning rate (cosine-annealed to lr/100)")->capture_default_str();
  app.add_option("--limit", cfg.limit, "Use only the first N training and N test samples (0: all)")->check(CLI::NonNegativeNumber);
  app.add_option("--data", cfg.data_root, "Directory of the idx files")->capture_default_str();
  app.add_option("--run-dir", cfg.run_dir, "Checkpoint directory")->capture_default_str();
  app.add_option("--checkpoint-every", cfg.checkpoint_every, "Save a checkpoint every N steps (0: only at the end)")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--keep", cfg.keep, "Checkpoints to keep")->check(CLI::PositiveNumber)->capture_default_str();
  auto* resume = app.add_flag("--resume", cfg.resume, "Continue from the newest checkpoint in --run-dir");
  app.add_flag("--restart", cfg.restart, "Delete the checkpoints in --run-dir and start afresh")->excludes(resume);
  app.add_option("--stop-after", cfg.stop_after, "Save and stop once N steps in all are done (an interruption)")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", cfg.seed, "Seed of the initialisation and of the data order")->capture_default_str();
  app.add_option("--device", cfg.device, "Where to train: cpu, cuda or cuda:N")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return run(cfg);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fashion_mnist: %s\n", e.what());
    return 1;
  }
}
