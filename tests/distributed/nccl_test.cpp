// The nccl process group. On a GPU (the *_CUDA tests): every collective at world size 1 (NCCL takes
// one GPU per rank, and these machines have one), for the dtypes NCCL carries, with zero elements
// and non-contiguous tensors; a CPU tensor and an int16 one refused; DDP training on cuda:0 through
// it equal to plain training, and FSDP's (its units gathered and released in GPU memory, AdamW on
// the shards, bf16 parameters) close to it. Without a GPU, or without the CUDA backend, asking for the group
// says why.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "ember/ember.h"
#include "support/expect.h"

namespace ember {
namespace {

using distributed::ReduceOp;
namespace fs = std::filesystem;

const Device kGpu = Device::cuda(0);

// A fresh file store for one group.
std::shared_ptr<distributed::Store> fresh_store(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ember_nccl_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return std::make_shared<distributed::FileStore>(dir.string());
}

std::shared_ptr<distributed::ProcessGroup> nccl_group(const std::string& name) {
  return distributed::new_process_group("nccl", fresh_store(name), "nccl", 0, 1, distributed::Milliseconds(60000));
}

TEST(NcclTest, AskingForTheGroupWithoutAGpuSaysWhy) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  if (backend_built(DeviceType::CUDA))
    testing::expect_error([] { nccl_group("no_gpu"); }, {"no CUDA device: ProcessGroupNCCL on cuda:0"});
  else
    testing::expect_error<NotImplementedError>([] { nccl_group("no_backend"); },
                                               {"the nccl backend needs Ember's CUDA backend", "no CUDA backend"});
}

TEST(NcclTest, CollectivesAtOneRank_CUDA) {
  auto group = nccl_group("collectives");
  EXPECT_EQ(group->backend(), "nccl");
  EXPECT_TRUE(group->device() == kGpu);
  for (DType t : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kInt8, kUInt8, kBool, kComplex64}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor host = arange(0, 12, 1, TensorOptions(kFloat64)).remainder(5).to(t).reshape({3, 4});
    const Tensor x = host.to(kGpu);
    group->allreduce(x, t == kBool || is_complex(t) ? ReduceOp::Sum : ReduceOp::Max)->wait();
    testing::expect_close(x.to(Device::cpu()), host, 0, 0, "allreduce");
    // a non-contiguous tensor goes through a contiguous copy and back
    const Tensor y = host.to(kGpu).t();
    group->broadcast(y, 0)->wait();
    testing::expect_close(y.to(Device::cpu()), host.t(), 0, 0, "broadcast");
    const Tensor gathered = zeros({3, 4}, TensorOptions(t).device(kGpu));
    group->allgather({gathered}, x)->wait();
    testing::expect_close(gathered.to(Device::cpu()), host, 0, 0, "allgather");
    const Tensor scattered = zeros({3, 4}, TensorOptions(t).device(kGpu));
    group->reduce_scatter(scattered, {x}, ReduceOp::Sum)->wait();
    testing::expect_close(scattered.to(Device::cpu()), host, 0, 0, "reduce_scatter");
  }
  const Tensor f = full({5}, 3.0, TensorOptions(kFloat32).device(kGpu));
  group->allreduce(f, ReduceOp::Avg)->wait();
  testing::expect_values(f.to(Device::cpu()), {3, 3, 3, 3, 3});
  group->allreduce(zeros({0}, TensorOptions(kFloat32).device(kGpu)))->wait();  // nothing to move
  group->barrier()->wait();
  testing::expect_error([&] { group->allreduce(ones({2})); }, {"allreduce", "the nccl backend takes tensors on cuda:0",
                                                               "got one on cpu"});
  testing::expect_error<NotImplementedError>([&] { group->allreduce(ones({2}, TensorOptions(kInt16).device(kGpu))); },
                                             {"allreduce: the nccl backend has no type for int16"});
  testing::expect_error<NotImplementedError>(
      [&] { group->allreduce(zeros({2}, TensorOptions(kComplex64).device(kGpu)), ReduceOp::Product); },
      {"cannot multiply complex64"});
}

// A 6-8-3 MLP on cuda:0, its weights drawn after manual_seed(seed).
std::shared_ptr<nn::Sequential> gpu_mlp(uint64_t seed) {
  manual_seed(seed);
  auto m = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(nn::LinearOptions{6, 8}), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(nn::LinearOptions{8, 3})});
  m->to(kGpu);
  return m;
}

TEST(NcclTest, DataParallelTrainingOnTheGpuFollowsPlainTraining_CUDA) {
  auto group = nccl_group("ddp");
  auto make = [] { return gpu_mlp(3); };
  auto plain = make(), wrapped = make();
  auto ddp = std::make_shared<distributed::DistributedDataParallel>(wrapped, distributed::DistributedDataParallelOptions{},
                                                                    group);
  optim::SGD a(plain->named_parameters(), {.lr = 0.1}), b(wrapped->named_parameters(), {.lr = 0.1});
  manual_seed(4);
  const Tensor x = randn({10, 6}).to(kGpu), y = randint(0, 3, {10}).to(kGpu);
  for (int step = 0; step < 3; ++step) {
    a.zero_grad();
    b.zero_grad();
    nn::functional::cross_entropy((*plain)(x), y).backward();
    nn::functional::cross_entropy((*ddp)(x), y).backward();
    a.step();
    b.step();
  }
  const auto want = plain->named_parameters(), got = wrapped->named_parameters();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    testing::expect_close(got[i].second.to(Device::cpu()), want[i].second.to(Device::cpu()), 0, 0, want[i].first);
}

TEST(NcclTest, FullyShardedTrainingOnTheGpuFollowsPlainTraining_CUDA) {
  auto group = nccl_group("fsdp");
  auto make = [] { return gpu_mlp(5); };
  for (bool bf16 : {false, true}) {
    SCOPED_TRACE(bf16 ? "bf16 parameters" : "float32");
    auto plain = make();
    distributed::FSDPOptions o;
    o.auto_wrap_policy = distributed::wrap_module_types({"Linear"});
    if (bf16) o.param_dtype = kBFloat16;
    distributed::FSDP fsdp(make(), o, group);
    optim::AdamW a(plain->named_parameters(), {.lr = 0.01}), b(fsdp.named_parameters(), {.lr = 0.01});
    manual_seed(6);
    const Tensor x = randn({10, 6}).to(kGpu), y = randint(0, 3, {10}).to(kGpu);
    for (int step = 0; step < 3; ++step) {
      a.zero_grad();
      b.zero_grad();
      nn::functional::cross_entropy((*plain)(x), y).backward();
      nn::functional::cross_entropy(fsdp(x).to(kFloat32), y).backward();
      a.step();
      b.step();
    }
    const nn::StateDict got = distributed::fsdp_full_state_dict(fsdp);
    for (const auto& [k, v] : plain->state_dict())
      testing::expect_close(got.at(k).to(Device::cpu()), v.to(Device::cpu()), bf16 ? 2e-2 : 1e-6, bf16 ? 2e-2 : 1e-6,
                            k);
  }
}

}  // namespace
}  // namespace ember
