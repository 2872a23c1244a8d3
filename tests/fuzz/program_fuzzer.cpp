// libFuzzer target for the program loader (jit::load, io/FORMAT.md §8): each input is a whole
// program file, parsed from memory and (its header's checksum fixed up, as load_fuzzer does) its
// document validated by jit::from_value, which builds the module without running anything. The
// only acceptable failure is an ember::Error; a crash, a sanitizer report, another exception, a
// huge allocation or a hang is a bug. With EMBER_FUZZ_SEEDS=<dir>, valid programs are written there
// first (a traced MLP with batch norm and dropout, a tied pair), so the seeds follow the writer.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "ember/core/factory.h"
#include "ember/core/generator.h"
#include "ember/io/checksum.h"
#include "ember/io/schema.h"
#include "ember/jit/jit.h"
#include "ember/nn/nn.h"
#include "resealed.h"

namespace {

void write_seeds(const std::string& dir) {
  using namespace ember;
  manual_seed(0);
  nn::Sequential mlp({std::make_shared<nn::Linear>(3, 4), std::make_shared<nn::BatchNorm1d>(4),
                      std::make_shared<nn::ReLU>(), std::make_shared<nn::Dropout>(0.5),
                      std::make_shared<nn::Linear>(4, 2)});
  jit::save(*jit::trace(mlp, randn({2, 3})), dir + "/mlp.ember", {.durable = false});
  nn::Sequential tied(
      {std::make_shared<nn::Linear>(3, 3), std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(3, 3)});
  tied[2]->replace_parameter("weight", tied[0]->parameter("weight"));
  jit::save(*jit::trace(tied, randn({1, 3})), dir + "/tied.ember", {.durable = false});
}

void load_one(const uint8_t* data, size_t size) {
  try {
    ember::io::File file = ember::io::File::from_bytes(data, size, "fuzz-input");
    auto module = ember::jit::from_value(file.root(/*verify=*/false), "fuzz-input");
    volatile size_t sink = module->program(true).str().size() + module->program(false).state().size();
    (void)sink;
  } catch (const ember::Error&) {
    // a clean refusal
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("EMBER_FUZZ_SEEDS")) write_seeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  load_one(data, size);
  std::string fixed = ember::fuzz::resealed(data, size);
  if (!fixed.empty() && std::memcmp(fixed.data(), data, size) != 0)
    load_one(reinterpret_cast<const uint8_t*>(fixed.data()), fixed.size());
  return 0;
}
