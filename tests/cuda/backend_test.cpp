// The CUDA backend as a build without a GPU can check it: every dispatch stub has a CUDA kernel
// (in a CUDA build), and every user-facing way onto a device fails with an error that starts "no
// CUDA device: " and says why (no backend in this build, or the runtime finding no device), never
// a crash; a module whose move failed is left whole on the CPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;

namespace {

// What the error says after "no CUDA device: <what> on cuda:N: ".
std::string why() {
  return EMBER_WITH_CUDA ? "the CUDA runtime finds none (cudaGetDeviceCount" : "build with -DEMBER_CUDA=ON";
}

}  // namespace

TEST(CudaBackendTest, EveryStubHasACudaKernelInACudaBuild) {
  const std::vector<StubEntry>& stubs = all_stubs();
  ASSERT_GE(stubs.size(), 37u) << "the stubs of core/kernels/stubs.cpp and core/copy.cpp";
  EXPECT_EQ(backend_built(DeviceType::CUDA), static_cast<bool>(EMBER_WITH_CUDA));
  for (const StubEntry& s : stubs) EXPECT_TRUE(s.has(DeviceType::CPU)) << s.name << ": no CPU kernel";
  if (!EMBER_WITH_CUDA) GTEST_SKIP() << "built without the CUDA backend (EMBER_CUDA=OFF or no nvcc)";
  // Nothing may be missing (a stub listed here would be CPU-only, a CUDA tensor getting the
  // dispatcher's error naming it).
  const std::set<std::string> cpu_only = {};
  for (const StubEntry& s : stubs)
    EXPECT_EQ(s.has(DeviceType::CUDA), !cpu_only.count(s.name))
        << s.name
        << (cpu_only.count(s.name) ? ": now has a CUDA kernel; take it off the CPU-only list"
                                   : ": no CUDA kernel (add one under cuda/, tutorials/adding_an_op.md)");
}

TEST(CudaBackendTest, DeviceQueriesAnswerWithoutADevice) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_EQ(device_count(DeviceType::CUDA), 0);
  EXPECT_EQ(device_count(DeviceType::CPU), 1);
  cuda::empty_cache();  // nothing to free: no error
  expect_error([] { cuda::synchronize(); }, {"no CUDA device: synchronize on cuda:0: ", why()});
  expect_error([] { cuda::synchronize(1); }, {"no CUDA device: synchronize on cuda:1"});
  expect_error([] { cuda::get_device_name(0); }, {"no CUDA device: get_device_name on cuda:0: ", why()});
  expect_error([] { cuda::memory_allocated(0); }, {"no CUDA device: memory_allocated on cuda:0"});
  check_device(Device::cpu(), "anything");  // the CPU is always there
}

TEST(CudaBackendTest, TensorsCannotGoToADeviceThatIsNotThere) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  const std::string no = "no CUDA device: cannot allocate memory on cuda:0: ";
  expect_error([] { zeros({2, 3}, Device::cuda()); }, {no, why()});
  expect_error([] { empty({0}, Device::cuda()); }, {no});  // even an empty tensor
  expect_error([] { randn({4}, TensorOptions(kFloat64).device(Device("cuda:0"))); }, {no});
  expect_error([] { arange(5, TensorOptions(kInt64).device(Device::cuda())); }, {no});
  expect_error([] { tensor(std::vector<float>{1, 2}, {2}, TensorOptions().device(Device::cuda())); }, {no});
  const Tensor x = randn({3}).set_requires_grad();
  expect_error([&] { x.to(Device::cuda()); }, {no, why()});
  expect_error([&] { x.to(Device("cuda:3")); }, {"no CUDA device: cannot allocate memory on cuda:3"});
  EXPECT_TRUE(x.device().is_cpu());
  EXPECT_EQ(x.to(Device::cpu()).data_ptr(), x.data_ptr());  // a move to where it is: the tensor itself
}

TEST(CudaBackendTest, AModuleThatCannotMoveStaysWholeOnTheCpu) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  nn::Sequential model;
  model.push_back(std::make_shared<nn::Linear>(nn::LinearOptions{4, 3}));
  model.push_back(std::make_shared<nn::BatchNorm1d>(3));
  std::vector<void*> before;
  // NB: the state dicts are named: a range-for over a temporary's items() would outlive it.
  nn::StateDict state = model.state_dict();
  for (const auto& [name, t] : state.items()) before.push_back(t.data_ptr());
  expect_error([&] { model.to(Device::cuda()); }, {"no CUDA device: cannot allocate memory on cuda:0"});
  size_t i = 0;
  nn::StateDict after = model.state_dict();
  for (const auto& [name, t] : after.items()) {
    EXPECT_TRUE(t.device().is_cpu()) << name;
    EXPECT_EQ(t.data_ptr(), before[i++]) << name;
  }
  EXPECT_EQ(model.forward(randn({2, 4})).sizes(), IntArrayRef({2, 3}));  // still usable
}

TEST(CudaBackendTest, LoadingOntoADeviceThatIsNotThereFailsBeforeReading) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a CUDA device";
  const std::string path = (std::filesystem::temp_directory_path() / "ember_cuda_backend_test.ember").string();
  io::save(io::Value::dict({{"w", randn({2})}}), path);
  io::LoadOptions options;
  options.map_location = Device::cuda();
  expect_error([&] { io::load(path, options); }, {"no CUDA device: io::load: map_location on cuda:0: ", why()});
  options.map_location = Device::cpu();
  EXPECT_TRUE(io::load(path, options).at("w").as_tensor().device().is_cpu());
  std::filesystem::remove(path);
}
