#pragma once
// Saving and loading io::Value trees as Ember checkpoints: valid safetensors files whose
// "__metadata__" holds Ember's schema (io/FORMAT.md). Saves are atomic; loads verify the header's
// and every tensor's checksum and trust nothing in the file.
//
//   io::save(io::Value::dict({{"model", io::to_value(model)}, {"epoch", 3}}), "ckpt.ember");
//   io::Value ckpt = io::load("ckpt.ember");          // tensors own their memory
//   Tensor w = io::load_tensor("ckpt.ember", "model/fc.weight");  // reads that tensor only
//
// By default what a load returns owns its memory: truncating, rewriting or replacing the file
// afterwards changes nothing and cannot crash the process. OpenOptions::mmap maps the file
// instead (pages read on first touch); see mapped_file.h for what that mode guarantees.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/io/value.h"

namespace ember::io {

/// The newest schema version this build writes; it reads this one and every earlier one. A file
/// is written with the oldest version that holds its tree: 1, 2 when a dict has an int key, 3
/// when it holds a complex128 tensor.
inline constexpr int64_t kSchemaVersion = 3;

struct SaveOptions {
  /// fsync the file and its directory before returning. Turn off only for scratch files.
  bool durable = true;
};

/// Writes `value` to `path` atomically: a failure or a crash leaves any previous file intact.
/// Each distinct tensor is stored once, under the path of its first occurrence in the tree
/// ("model/fc.weight", "note/1"); the file records every other path it is reachable by.
void save(const Value& value, const std::string& path, const SaveOptions& options = {});

/// Writes a plain safetensors file, for tools that know nothing of Ember: every tensor of
/// `value` under its path ("model/fc.weight"; a tensor reachable by two paths, a tie, is written
/// under each), `metadata` as the header's "__metadata__", no checksums and no value tree.
/// Returns the paths of the non-tensor values left out (ints, strings, ...). Atomic like save().
std::vector<std::string> save_safetensors(const Value& value, const std::string& path,
                                          const std::map<std::string, std::string>& metadata = {},
                                          const SaveOptions& options = {});

struct LoadOptions {
  /// Verify every tensor's checksum while loading (an error naming the tensor if one differs).
  /// The header's checksum is verified always.
  bool verify = true;
  /// Map the file instead of reading it (PyTorch's torch.load(mmap=True)): tensors borrow its
  /// pages, read on first touch. See mapped_file.h for the guarantees.
  bool mmap = false;
  /// Where the tensors go (PyTorch's map_location): the CPU, where files are read, or a device,
  /// to which each tensor is then copied (ties stay ties; requires_grad and attributes travel).
  Device map_location = Device::cpu();
  /// A torch.save file's globals to keep ("argparse.Namespace"; "*": any) instead of refusing
  /// them: each comes back described for the caller to build (io/pt_load.h, kPickledGlobalKey),
  /// as ember.load builds those that torch.serialization.add_safe_globals allowed.
  std::vector<std::string> pickle_globals;
};

/// Reads a checkpoint, recognised by its content: an Ember checkpoint, a plain safetensors file
/// (a dict of its tensors in file order) or a PyTorch torch.save zip (io/pt_load.h; nothing in
/// it is executed). Only a regular file is read (a directory, FIFO or device is refused before
/// it is opened); failures to read are ember::OSError naming the file and the errno.
Value load(const std::string& path, const LoadOptions& options = {});

/// How File::open reads a file.
struct OpenOptions {
  /// Map the file (tensors borrow its pages) instead of reading each tensor into memory of
  /// its own when asked for.
  bool mmap = false;
  /// With mmap: fault every page in at once (for a caller that will read every tensor).
  bool populate = false;
  /// As LoadOptions::pickle_globals.
  std::vector<std::string> pickle_globals;
};

/// One tensor, by its key or any other name it was saved under, without reading the others;
/// its checksum is verified.
Tensor load_tensor(const std::string& path, const std::string& name, const OpenOptions& options = {});

/// What a file says about one stored tensor.
struct TensorInfo {
  std::string key;                  // the safetensors key
  std::vector<std::string> names;   // every path it is reachable by (the key first)
  DType dtype;
  DimVector shape;
  uint64_t nbytes = 0;
  bool requires_grad = false;
  Attributes attributes;
  std::optional<uint64_t> checksum;  // absent in plain safetensors files
};

/// An opened checkpoint: header parsed and checked, nothing read beyond it until asked.
class File {
 public:
  /// Opens `path` and parses its header (verifying the header's checksum); tensors are read
  /// when asked for (or borrowed from a mapping, with options.mmap). The file stays open for as
  /// long as the File or a tensor borrowed from its mapping lives.
  static File open(const std::string& path, const OpenOptions& options = {});
  /// Parses bytes held in memory (copied); `name` stands for the file name in errors.
  static File from_bytes(const void* data, size_t size, const std::string& name = "<memory>");

  const std::string& path() const;
  enum class Kind { Ember, Safetensors, PyTorch };
  /// What the file is, told by its content.
  Kind kind() const;
  /// True for files with Ember's schema; false for plain safetensors and PyTorch files.
  bool is_ember() const;
  /// The schema version the file was written with (0 for plain safetensors).
  int64_t version() const;
  /// The header's "__metadata__" strings.
  const std::map<std::string, std::string>& metadata() const;
  /// Every stored tensor, in data order (empty for a PyTorch file: its tensors are in root()).
  const std::vector<TensorInfo>& tensors() const;
  /// The info of the tensor stored under `name` (its key or an alias); a KeyError otherwise.
  const TensorInfo& info(const std::string& name) const;
  /// The tensor under `name`, read into memory of its own (or borrowed from the mapping); its
  /// checksum is verified on the bytes returned.
  Tensor tensor(const std::string& name) const;
  /// Whether tensors borrow a mapping of the file (OpenOptions::mmap).
  bool is_mapped() const;
  /// True when the stored bytes of `name` match its checksum (or it has none).
  bool verify(const std::string& name) const;
  /// The whole tree, verifying every checksum first when `verify`.
  Value root(bool verify = true) const;

  struct Impl;

 private:
  explicit File(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace ember::io
