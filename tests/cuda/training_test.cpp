// Whole training on cuda:0 against the same on the CPU, and checkpoints that cross devices: a CNN
// (convolutions, batch norm, max pooling, dropout, a linear head, cross entropy, Adam) trained a few
// steps from the same initialisation and generator on both devices reaches the same losses; a
// checkpoint saved from cuda:0 loads on the CPU and back (map_location) and training continues
// alike on both; gradients through GPU kernels pass float64 gradcheck. Needs a GPU (*_CUDA).
#include <gtest/gtest.h>

#include <filesystem>

#include "cuda_test_util.h"
#include "ember/nn/loss.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {

std::shared_ptr<nn::Sequential> make_cnn() {
  using M = std::shared_ptr<nn::Module>;
  return std::make_shared<nn::Sequential>(std::vector<M>{
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 1, .out_channels = 8, .kernel_size = 3, .padding = 1}),
      std::make_shared<nn::BatchNorm2d>(8), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 8, .out_channels = 16, .kernel_size = 3, .padding = 1}),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Flatten>(),
      std::make_shared<nn::Dropout>(0.25), std::make_shared<nn::Linear>(nn::LinearOptions{16 * 3 * 3, 10})});
}

// Losses of `steps` Adam steps on fixed random batches, the model on `device`; the default generator
// (initialisation, dropout) seeded alike for every run.
std::vector<double> train(Device device, int steps, std::shared_ptr<nn::Sequential>* keep = nullptr) {
  manual_seed(1234);
  auto model = make_cnn();
  model->to(device);
  optim::Adam adam(model->named_parameters(), {.lr = 1e-2});
  Generator data(99);
  std::vector<double> losses;
  for (int s = 0; s < steps; ++s) {
    const Tensor x = randn({16, 1, 12, 12}, kFloat32, &data).to(device);
    const Tensor y = randint(0, 10, {16}, kInt64, &data).to(device);
    const Tensor loss = nn::functional::cross_entropy((*model)(x), y);
    adam.zero_grad();
    loss.backward();
    adam.step();
    losses.push_back(loss.item<double>());
  }
  if (keep) *keep = model;
  return losses;
}

}  // namespace

TEST(CudaTrainingTest, ACnnTrainsToTheSameLossesOnBothDevices_CUDA) {
  const std::vector<double> cpu = train(Device::cpu(), 8), gpu = train(kGpu, 8);
  ASSERT_EQ(cpu.size(), gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) EXPECT_NEAR(gpu[i], cpu[i], 1e-3 * std::abs(cpu[i]) + 1e-4) << "step " << i;
  EXPECT_LT(gpu.back(), gpu.front());  // it learns
}

TEST(CudaTrainingTest, ACheckpointFromTheGpuLoadsOnTheCpuAndBack_CUDA) {
  std::shared_ptr<nn::Sequential> on_gpu;
  train(kGpu, 3, &on_gpu);
  const std::string path = (std::filesystem::temp_directory_path() / "ember_cuda_checkpoint.ember").string();
  io::save(io::Value::dict({{"model", io::to_value(*on_gpu)}}), path);  // copied to the host, checksummed

  // On the CPU: the default load.
  manual_seed(1);
  auto on_cpu = make_cnn();
  io::load_into(*on_cpu, io::load(path).at("model"));
  nn::StateDict gpu_state = on_gpu->state_dict();  // named: items() of a temporary would dangle
  for (const auto& [name, t] : gpu_state.items()) {
    EXPECT_TRUE(on_cpu->state_dict().at(name).device().is_cpu());
    ember::testing::expect_close(on_cpu->state_dict().at(name), t.to(Device::cpu()), 0, 0, name);
  }

  // Back onto the GPU with map_location: every tensor there, ties kept.
  io::LoadOptions to_gpu;
  to_gpu.map_location = kGpu;
  const io::Value back = io::load(path, to_gpu);
  int tensors = 0;
  const std::function<void(const io::Value&)> visit = [&](const io::Value& v) {
    if (v.is_tensor()) {
      ++tensors;
      EXPECT_TRUE(v.as_tensor().device() == kGpu);
    } else if (v.is_list() || v.is_tuple() || v.is_dict()) {
      for (const io::Value& item : v.items()) visit(item);
    }
  };
  visit(back);
  EXPECT_EQ(tensors, static_cast<int>(on_gpu->state_dict().size()));
  auto again = make_cnn();
  again->to(kGpu);
  io::load_into(*again, back.at("model"));

  // One more step on each copy gives the same loss.
  const Tensor x = randn({4, 1, 12, 12}), y = tensor(std::vector<int64_t>{1, 2, 3, 4});
  on_cpu->eval();
  again->eval();
  const double lc = nn::functional::cross_entropy((*on_cpu)(x), y).item<double>();
  const double lg = nn::functional::cross_entropy((*again)(x.to(kGpu)), y.to(kGpu)).item<double>();
  EXPECT_NEAR(lg, lc, 1e-4 * std::abs(lc));
  std::filesystem::remove(path);
}

TEST(CudaTrainingTest, GradientsThroughGpuKernelsPassGradcheck_CUDA) {
  using autograd::gradcheck;
  using autograd::TensorList;
  // f runs on cuda:0; the inputs and the result stay on the CPU, so gradcheck perturbs host values
  // and the analytic gradients come back through the device copies' backward.
  const auto on_gpu = [](const std::function<Tensor(const TensorList&)>& f) {
    return [f](const TensorList& in) {
      TensorList moved;
      for (const Tensor& t : in) moved.push_back(t.to(kGpu));
      return f(moved).to(Device::cpu());
    };
  };
  const Tensor x = uniform({2, 3, 5, 5}, -1, 1, 1).set_requires_grad();
  const Tensor w = uniform({4, 3, 3, 3}, -1, 1, 2).set_requires_grad();
  gradcheck(on_gpu([](const TensorList& in) { return conv2d(in[0], in[1], Tensor(), 1, 1); }), {x, w});
  gradcheck(on_gpu([](const TensorList& in) { return max_pool2d(in[0], 2); }), {x});
  gradcheck(on_gpu([](const TensorList& in) { return softmax(in[0], 1); }), {x});
  gradcheck(on_gpu([](const TensorList& in) { return layer_norm(in[0], {5, 5}); }), {x});
  gradcheck(on_gpu([](const TensorList& in) { return batch_norm(in[0], Tensor(), Tensor(), Tensor(), Tensor(), true); }), {x});
  const Tensor a = uniform({3, 4}, -1, 1, 3).set_requires_grad(), b = uniform({4, 5}, -1, 1, 4).set_requires_grad();
  gradcheck(on_gpu([](const TensorList& in) { return matmul(in[0], in[1].t().contiguous().t()).tanh().sum({1}); }), {a, b});
  const Tensor idx = tensor(std::vector<int64_t>{2, 0, 2});
  gradcheck(on_gpu([&](const TensorList& in) { return index_select(in[0], 1, idx.to(kGpu)).cumsum(1); }), {a});
}

TEST(CudaAllocatorTest, FreedBlocksAreReusedAndOutOfMemoryIsAnError_CUDA) {
  cuda::synchronize();
  void* first;
  {
    const Tensor t = empty({1 << 20}, TensorOptions(kFloat32).device(kGpu));
    first = t.data_ptr();
  }
  const int64_t reserved = cuda::memory_reserved(0);
  const Tensor again = empty({(1 << 20) - 100}, TensorOptions(kFloat32).device(kGpu));  // the same size class
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(cuda::memory_reserved(0), reserved);  // nothing new from the driver
  EXPECT_GE(cuda::memory_allocated(0), static_cast<int64_t>(again.nbytes()));
  ember::testing::expect_error([] { empty({int64_t{1} << 50}, TensorOptions(kFloat32).device(kGpu)); },
                        {"CUDA out of memory: allocating", "on cuda:0", "the cache was emptied and the allocation retried"});
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(0), cuda::memory_allocated(0));
  EXPECT_FALSE(cuda::get_device_name(0).empty());
  cuda::synchronize(0);
}
