// libFuzzer target for the torch.save pickle reader on its own (io/pt_load.cpp). Each input is a
// data.pkl: it is unpickled against a fixed, valid archive (the corpus's ok_torch_optimizer.pt,
// whose storages 0 to 3 hold float32, bool and int64 data), so no mutation is spent on the zip
// container or its CRCs, which load_fuzzer covers. Every tensor reached is read byte for byte.
// The only acceptable failure is an ember::Error. Built and run by `make fuzz`; its seeds are the
// data.pkl of every .pt file in the malformed corpus.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "ember/io/pt_load.h"
#include "read_all.h"

namespace {

struct Archive {
  std::vector<uint8_t> bytes;
  std::unique_ptr<ember::io::detail::ZipArchive> zip;
};

const Archive& archive() {
  static const Archive a = [] {
    Archive out;
    std::ifstream in(EMBER_PT_FUZZ_ARCHIVE, std::ios::binary);
    out.bytes.assign(std::istreambuf_iterator<char>(in), {});
    out.zip = std::make_unique<ember::io::detail::ZipArchive>(out.bytes.data(), out.bytes.size(), EMBER_PT_FUZZ_ARCHIVE);
    return out;
  }();
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Archive& a = archive();
  // Each input is read twice: as torch.load(weights_only=True) reads, and with every global allowed
  // (described instead of refused: the objects, their arguments and states, safe_globals' path).
  static const std::vector<std::string> kNone, kAny{"*"};
  for (const std::vector<std::string>* globals : {&kNone, &kAny}) {
    try {
      ember::io::detail::TorchFile out;
      ember::fuzz::read_all(ember::io::detail::read_pickle(*a.zip, "archive", data, size, nullptr, out, *globals));
    } catch (const ember::Error&) {
      // A clean refusal: what a malformed pickle must produce.
    }
  }
  return 0;
}
