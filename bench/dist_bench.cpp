// Distributed figures of `make bench` (bench/run.sh runs it under ember-run): allreduce, all-gather
// and reduce-scatter of 25 MB and 100 MB of float32 through Ember's Gloo process group against
// Gloo's own function-style calls on a context of its own (the same TCP transport over loopback):
// allreduce and allgather the same algorithms; Gloo has no function-style reduce-scatter, so
// Ember's ring is timed against Gloo's allreduce of the same data (what a reduce-scatter over
// allreduce costs). And the training steps per second of an MLP whose global batch is split over
// the ranks by DistributedDataParallel (one rank: the plain model). And FSDP against DDP on a
// 1024-wide, 8-layer MLP (8.4M parameters) trained with AdamW: step time, and each rank's peak
// memory (the CPU allocator's statistics, from before the model is built) against a cap of 3/4 of
// what DDP needs, so that DDP does not fit and FSDP, from 2 ranks, does. Rank 0 prints "name value
// unit" lines; a collective's GB/s is the data it covers (the full buffer) over its time.
//   ember-run --nproc 2 dist_bench SCRATCH_DIR      # SCRATCH_DIR: empty, for Gloo's file store
#include <ember/ember.h>
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace ember;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Appends the times of `runs` calls of f after one untimed one, every rank starting each together.
template <typename F>
void time_calls(distributed::ProcessGroup& group, int runs, const F& f, std::vector<double>& times) {
  f();
  for (int i = 0; i < runs; ++i) {
    group.barrier()->wait();
    const auto t0 = Clock::now();
    f();
    times.push_back(seconds_since(t0));
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A Gloo context of every rank, rendezvous through a file store in `dir`.
std::shared_ptr<gloo::rendezvous::Context> gloo_context(const std::string& dir, int rank, int size) {
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
#if EMBER_GLOO_SHARED_STORE
  auto store = std::make_shared<gloo::rendezvous::FileStore>(dir);
  context->connectFullMesh(store, device);
#else
  gloo::rendezvous::FileStore store(dir);
  context->connectFullMesh(store, device);
#endif
  return context;
}

void gloo_allreduce(const std::shared_ptr<gloo::Context>& context, float* data, size_t n, uint32_t tag) {
  gloo::AllreduceOptions opts(context);
  opts.setOutput(data, n);
  opts.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
  opts.setTag(tag);
  gloo::allreduce(opts);
}

void gloo_allgather(const std::shared_ptr<gloo::Context>& context, float* in, float* out, size_t n, uint32_t tag) {
  gloo::AllgatherOptions opts(context);
  opts.setInput(in, n);
  opts.setOutput(out, n * static_cast<size_t>(context->size));
  opts.setTag(tag);
  gloo::allgather(opts);
}

// Steps per second of SGD on a 784-256-128-10 MLP, the global batch of 64 split over the ranks.
double mlp_steps_per_second(int rank, int world) {
  manual_seed(0);
  std::shared_ptr<nn::Module> model = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(nn::LinearOptions{784, 256}), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(nn::LinearOptions{256, 128}), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(nn::LinearOptions{128, 10})});
  std::shared_ptr<nn::Module> net = model;
  if (world > 1) net = std::make_shared<distributed::DistributedDataParallel>(model);
  optim::SGD sgd(model->named_parameters(), {.lr = 0.01});
  const int64_t share = 64 / world;
  const Tensor x = randn({64, 784}).narrow(0, rank * share, share).contiguous();
  const Tensor y = randint(0, 10, {64}).narrow(0, rank * share, share).contiguous();
  auto step = [&] {
    sgd.zero_grad();
    nn::functional::cross_entropy((*net)(x), y).backward();
    sgd.step();
  };
  for (int i = 0; i < 20; ++i) step();
  // NB: a fixed number of steps, so that every rank runs as many (DDP's allreduces pair them up).
  const int steps = 600;
  const auto t0 = Clock::now();
  for (int i = 0; i < steps; ++i) step();
  return steps / seconds_since(t0);
}

struct WideMlp {
  double ms;            // per step
  double peak_mb;       // the most held from building the model on (per rank)
  double step_peak_mb;  // the most held during the timed steps
};

// FSDP (each Linear a unit) or DDP training of an 8 x 1024 MLP.
WideMlp wide_mlp_step(int rank, int world, bool sharded) {
  reset_cpu_peak_memory();
  const int64_t base = cpu_memory_allocated();
  WideMlp r{};
  {
    manual_seed(0);
    std::vector<std::shared_ptr<nn::Module>> layers;
    for (int i = 0; i < 8; ++i) {
      layers.push_back(std::make_shared<nn::Linear>(nn::LinearOptions{1024, 1024}));
      layers.push_back(std::make_shared<nn::ReLU>());
    }
    std::shared_ptr<nn::Module> model = std::make_shared<nn::Sequential>(layers);
    std::unique_ptr<distributed::FSDP> fsdp;
    std::shared_ptr<nn::Module> ddp;
    optim::NamedParameters params;
    if (sharded) {
      distributed::FSDPOptions o;
      o.auto_wrap_policy = distributed::wrap_module_types({"Linear"});
      fsdp = std::make_unique<distributed::FSDP>(model, o);
      params = fsdp->named_parameters();
    } else {
      ddp = world > 1 ? std::make_shared<distributed::DistributedDataParallel>(model) : model;
      params = model->named_parameters();
    }
    optim::AdamW opt(params, {.lr = 1e-4});
    const int64_t share = 64 / world;
    const Tensor x = randn({64, 1024}).narrow(0, rank * share, share).contiguous();
    const Tensor y = randn({64, 1024}).narrow(0, rank * share, share).contiguous();
    auto step = [&] {
      opt.zero_grad();
      nn::functional::mse_loss(sharded ? (*fsdp)(x) : (*ddp)(x), y).backward();
      opt.step();
    };
    for (int i = 0; i < 2; ++i) step();
    r.peak_mb = static_cast<double>(cpu_max_memory_allocated() - base) / (1 << 20);
    reset_cpu_peak_memory();
    const int steps = 10;
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) step();
    r.ms = 1000 * seconds_since(t0) / steps;
    r.step_peak_mb = static_cast<double>(cpu_max_memory_allocated() - base) / (1 << 20);
  }
  r.peak_mb = std::max(r.peak_mb, r.step_peak_mb);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ember-run --nproc N dist_bench SCRATCH_DIR\n");
    return 2;
  }
  distributed::init_process_group();
  const int rank = distributed::get_rank(), world = distributed::get_world_size();
  auto out = [&](const char* name, double value, const char* unit) {
    if (rank == 0) std::printf("%s_world%d %.4g %s\n", name, world, value, unit);
  };
  out("ddp_mlp_steps", mlp_steps_per_second(rank, world), "steps/s");
  {
    // 8.4M parameters: 4 bytes each of value and gradient, 8 of AdamW's moments.
    const double cap_mb = 0.75 * 8 * (1024.0 * 1024 + 1024) * 16 / (1 << 20);
    for (bool sharded : {false, true}) {
      if (sharded && world == 1) continue;
      const WideMlp m = wide_mlp_step(rank, world, sharded);
      const std::string name = sharded ? "fsdp_mlp8x1024" : "ddp_mlp8x1024";
      out((name + "_step").c_str(), m.ms, "ms");
      out((name + "_peak").c_str(), m.peak_mb, "MB/rank");
      out((name + "_step_peak").c_str(), m.step_peak_mb, "MB/rank");
      out((name + "_fits_cap").c_str(), m.peak_mb <= cap_mb ? 1 : 0,
          (std::to_string(static_cast<int>(cap_mb)) + "MB").c_str());
    }
  }
  if (world > 1) {
    distributed::ProcessGroup& group = distributed::default_group();
    const std::shared_ptr<gloo::rendezvous::Context> gloo = gloo_context(argv[1], rank, world);
    uint32_t tag = 0;
    for (int64_t mb : {25, 100}) {
      const int64_t n = mb * 1000 * 1000 / 4;
      Tensor t = ones({n});
      std::vector<float> raw(static_cast<size_t>(n), 1.0f);
      // NB: five alternating rounds, each side's median over all its calls: two ranks and their
      // threads on two cores make single calls vary by 2x, and neither side may always run second.
      std::vector<double> ember_times, gloo_times;
      for (int round = 0; round < 5; ++round) {
        time_calls(group, 4, [&] { gloo_allreduce(gloo, raw.data(), raw.size(), tag++); }, gloo_times);
        time_calls(group, 4, [&] { group.allreduce(t)->wait(); }, ember_times);
      }
      const double ember_s = median(ember_times), gloo_s = median(gloo_times);
      const std::string name = "allreduce_" + std::to_string(mb) + "mb";
      out((name + "_ember").c_str(), mb / 1000.0 / ember_s, "GB/s");
      out((name + "_gloo").c_str(), mb / 1000.0 / gloo_s, "GB/s");

      // all-gather: each rank's 1/world of the buffer to every rank.
      const int64_t part = n / world;
      Tensor mine = ones({part});
      std::vector<Tensor> parts;
      for (int r = 0; r < world; ++r) parts.push_back(empty({part}));
      std::vector<float> raw_in(static_cast<size_t>(part), 1.0f), raw_out(static_cast<size_t>(part * world));
      std::vector<double> ag_ember, ag_gloo;
      for (int round = 0; round < 5; ++round) {
        time_calls(
            group, 4, [&] { gloo_allgather(gloo, raw_in.data(), raw_out.data(), raw_in.size(), tag++); }, ag_gloo);
        time_calls(
            group, 4, [&] { group.allgather(parts, mine)->wait(); }, ag_ember);
      }
      out(("allgather_" + std::to_string(mb) + "mb_ember").c_str(), mb / 1000.0 / median(ag_ember), "GB/s");
      out(("allgather_" + std::to_string(mb) + "mb_gloo").c_str(), mb / 1000.0 / median(ag_gloo), "GB/s");

      // reduce-scatter: the buffer's world chunks summed over the ranks, each rank keeping one.
      std::vector<Tensor> chunks;
      for (int r = 0; r < world; ++r) chunks.push_back(ones({part}));
      Tensor reduced = empty({part});
      std::vector<double> rs_ember, rs_gloo;
      for (int round = 0; round < 5; ++round) {
        time_calls(
            group, 4, [&] { gloo_allreduce(gloo, raw.data(), raw.size(), tag++); }, rs_gloo);
        time_calls(
            group, 4, [&] { group.reduce_scatter(reduced, chunks)->wait(); }, rs_ember);
      }
      out(("reduce_scatter_" + std::to_string(mb) + "mb_ember").c_str(), mb / 1000.0 / median(rs_ember), "GB/s");
      out(("reduce_scatter_" + std::to_string(mb) + "mb_gloo_allreduce").c_str(), mb / 1000.0 / median(rs_gloo),
          "GB/s");
    }
  }
  distributed::destroy_process_group();
  return 0;
}
