#pragma once
// PyTorch checkpoints (torch.save, zip format of PyTorch 1.6+) read without PyTorch and without
// executing anything (io/FORMAT.md §6). io::load recognises them by content and returns the same
// io::Value tree as for Ember files:
//
//   io::Value sd = io::load("resnet.pt");                 // {"conv1.weight": Tensor, ...}
//   io::load_into(model, sd);                             // as for an Ember state dict
//
// data.pkl is read by a restricted unpickler that knows what state dicts and training
// checkpoints hold: dict and OrderedDict (order kept; int keys stay ints),
// list, tuple, str, int, float, bool, None, torch.Size (a tuple), torch dtypes (their name,
// "torch.float32") and tensors and parameters over typed storages of float64/32/16, bfloat16,
// int64/32/16, int8, uint8 and bool. Tensors over one storage share it in Ember, with their offsets and
// strides (views stay views); the same storage, offset, shape and strides give the same Tensor,
// so a tie stays a tie. Any other global is refused with a ValueError naming it ("os.system"),
// as torch.load(weights_only=True) does, unless the caller allows it (LoadOptions::pickle_globals,
// what torch.serialization.add_safe_globals does): then nothing is executed either, but each
// object the pickle makes from it comes back described, for the caller to build:
//   {"__ember_global__": "argparse.Namespace", "call": "new", "args": (...), "state": {...}}
// "call" is "new" (cls.__new__(cls, *args)), "reduce" (fn(*args)) or "global" (the class or
// function itself, no args); "state" (pickle's BUILD) only when the pickle sets one. Every count,
// length, memo index and nesting level is bounded, and each failure names the file and the reason.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/io/pt_zip.h"
#include "ember/io/value.h"

namespace ember::io {

/// True when `bytes` start like a zip archive (what torch.save writes).
bool is_pytorch_zip(const void* bytes, size_t size);
/// Throws a NotImplementedError naming `file` when `bytes` are a file Ember recognises but does
/// not read (a legacy, pre-zip torch.save file or another Python pickle), saying what to do.
void refuse_foreign_format(const void* bytes, size_t size, const std::string& file);

/// A training checkpoint's optimizer.state_dict() from PyTorch ({"state": {0: {...}, ...},
/// "param_groups": [{"lr": ..., "params": [0, 1, ...]}, ...]}, as io::load returns it) in Ember's
/// optimizer tree (io/optim_io.h), ready for io::load_into(optimizer, value). PyTorch numbers
/// parameters by position over all groups; `names` gives the structured name of each position
/// (the matching model's named_parameters() order, which PyTorch shares). Adam/AdamW
/// (exp_avg, exp_avg_sq, max_exp_avg_sq, step; betas a pair, flags bools) and SGD
/// (momentum_buffer) are mapped; `type` is Ember's optimizer name ("Adam", "AdamW", "SGD").
/// A ValueError names a position without a name, an unknown state key or a malformed field.
Value import_torch_optimizer(const Value& torch_state, const std::vector<std::string>& names,
                             const std::string& type);

/// The key of the dict that describes an object made from an allowed global (above).
inline constexpr const char* kPickledGlobalKey = "__ember_global__";

namespace detail {

/// A parsed torch.save file: the value tree and the entries it was read from.
struct TorchFile {
  Value root;
  std::shared_ptr<const ZipArchive> archive;
  std::vector<const ZipEntry*> used;  // data.pkl and every storage, into *archive
  /// The first used entry whose bytes do not match their CRC-32, or null.
  const ZipEntry* first_damaged() const;
};

/// Parses the torch.save archive in `bytes` (`size` bytes, kept alive by `owner`; tensors borrow
/// them where aligned). `file` names it in errors; `globals` are those to describe, not refuse.
TorchFile read_torch(const uint8_t* bytes, size_t size, const std::string& file, std::shared_ptr<void> owner,
                     const std::vector<std::string>& globals = {});

/// The value tree of the `size`-byte pickle at `pickle`, its storages read from `zip` under
/// `<prefix>/data/` (added to out.used). What read_torch does after the archive's checks; the
/// pickle fuzzer (tests/fuzz/pt_fuzzer.cpp) calls it directly.
Value read_pickle(const ZipArchive& zip, const std::string& prefix, const uint8_t* pickle, size_t size,
                  std::shared_ptr<void> owner, TorchFile& out, const std::vector<std::string>& globals = {});

}  // namespace detail

}  // namespace ember::io
