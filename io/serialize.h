#pragma once
// Saving and loading io::Value trees as Ember checkpoints: valid safetensors files whose
// "__metadata__" holds Ember's schema (io/FORMAT.md). Saves are atomic; loads map the file,
// verify checksums and trust nothing in it.
//
//   io::save(io::Value::dict({{"model", io::to_value(model)}, {"epoch", 3}}), "ckpt.ember");
//   io::Value ckpt = io::load("ckpt.ember");          // tensors borrow the mapped file
//   Tensor w = io::load_tensor("ckpt.ember", "model/fc.weight");  // reads that tensor only
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
  bool verify = true;
  /// Where the tensors go (PyTorch's map_location): the CPU, where files are read, or a device,
  /// to which each tensor is then copied (ties stay ties; requires_grad and attributes travel).
  Device map_location = Device::cpu();
};

/// Reads a checkpoint, recognised by its content: an Ember checkpoint, a plain safetensors file
/// (a dict of its tensors in file order) or a PyTorch torch.save zip (io/pt_load.h; nothing in
/// it is executed). The tensors share the file's mapped pages; editing one in place copies the
/// page, never the file.
Value load(const std::string& path, const LoadOptions& options = {});

/// One tensor, by its key or any other name it was saved under, without reading the others;
/// its checksum is verified.
Tensor load_tensor(const std::string& path, const std::string& name);

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
  /// Maps and parses `path`; `read_all` faults every page in at once (for a caller that will
  /// read every tensor).
  static File open(const std::string& path, bool read_all = false);
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
  /// The tensor under `name`, sharing the file's memory; its checksum is verified.
  Tensor tensor(const std::string& name) const;
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
