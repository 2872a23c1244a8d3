// libFuzzer target for the checkpoint loader (FORMAT.md §4: loading never trusts the file).
// Each input is a whole file: it is parsed from memory (io::File::from_bytes), every tensor's
// checksum is computed, the value tree is decoded and every tensor it reaches is read byte for
// byte, so a tensor pointing outside the buffer is an ASan report. The only acceptable failure is
// an ember::Error; anything else (a crash, a sanitizer report, another exception escaping, a huge
// allocation, a hang) is a bug. Built and run by `make fuzz` (see tests/fuzz/CMakeLists.txt).
//
// With EMBER_FUZZ_SEEDS=<dir> set, the target first writes valid checkpoints there with
// io::save, so the seeds always match the current writer (the Makefile passes that folder and the
// malformed corpus tests/fixtures/io/malformed/ as seed directories). The corpus's ok_torch_*.pt
// and pt_*.pt files seed the PyTorch path (torch.save archives), which the same entry point
// reaches: File::from_bytes tells the file type by content. Each input is also loaded with its
// header's checksum fixed up, so mutations of the header reach the parsers behind that check.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "ember/core/factory.h"
#include "ember/io/checksum.h"
#include "ember/io/schema.h"
#include "ember/io/serialize.h"
#include "read_all.h"
#include "resealed.h"

namespace {

using ember::fuzz::read_all;
using ember::io::Value;

void write_seeds(const std::string& dir) {
  using namespace ember;
  Tensor w = arange(6, kFloat32).reshape({2, 3}).set_requires_grad();
  w.attributes()["lr_scale"] = 0.5;
  w.attributes()["no_decay"] = true;
  Value model = Value::dict({{"fc.weight", Value(w, io::TensorKind::Parameter)},
                             {"fc.tied", Value(w, io::TensorKind::Parameter)},  // a tie: two names
                             {"bn.mean", Value(zeros({3}, kFloat64), io::TensorKind::Buffer, false)}});
  Value every_dtype = Value::list({true, "s", ones({0, 2}, kBFloat16), ones({2}, kFloat16), ones({3}, kBool),
                                   ones({1}, kUInt8), ones({2}, kInt32)});
  Value tree = Value::dict({{"model", model},
                            {"step", int64_t{7}},
                            {"lr", 1e-3},
                            {"note", Value::tuple({"best", arange(3, kInt64), Value()})},
                            {"extra", every_dtype}});
  io::save(tree, dir + "/valid_tree.ember", {.durable = false});
  io::save(Value(scalar_tensor(2.5)), dir + "/valid_scalar.ember", {.durable = false});
  io::save(Value::list({}), dir + "/valid_empty.ember", {.durable = false});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("EMBER_FUZZ_SEEDS")) write_seeds(dir);
  return 0;
}

namespace {

void load_one(const uint8_t* data, size_t size) {
  try {
    ember::io::File file = ember::io::File::from_bytes(data, size, "fuzz-input");
    for (const ember::io::TensorInfo& info : file.tensors()) {
      ember::fuzz::sink += file.verify(info.key);
      for (const std::string& name : info.names) ember::fuzz::sink += file.info(name).nbytes;
    }
    // Unverified, so that inputs with a wrong checksum (nearly all mutations of the data) still
    // reach the tree decoder; verify() above has hashed every tensor already.
    read_all(file.root(/*verify=*/false));
  } catch (const ember::Error&) {
    // A clean refusal: what a malformed file must produce.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  load_one(data, size);
  std::string fixed = ember::fuzz::resealed(data, size);
  if (!fixed.empty() && std::memcmp(fixed.data(), data, size) != 0)
    load_one(reinterpret_cast<const uint8_t*>(fixed.data()), fixed.size());
  return 0;
}
