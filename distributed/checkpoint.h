#pragma once
// Distributed checkpoints: a directory that N ranks write together and M ranks read back.
//
//   step-000000000100/
//     replicated.ember     what every rank holds alike (DDP's model and optimizer): rank 0 writes it
//     rank-00000.ember     each rank's own state (its generators) and its shards
//     rank-00001.ember
//     index.json           written last, by rank 0: every shard's global shape, dtype and chunks,
//                          sealed with its own checksum ("checksum": XXH3 of the text with its
//                          digits zeroed, io/checksum.h's seal(); index version 2)
//
// Each file is an Ember checkpoint (safetensors: io/FORMAT.md). A sharded tensor (ZeRO's optimizer
// state, or any tensor split over ranks) is saved as chunks, each with its offsets in the global
// tensor; the index lists them, so a reader asks for any region of any tensor and reads only the
// chunks (files) that overlap it: a checkpoint saved on N ranks loads on M.
//
// The commit is atomic across ranks: every rank writes into "<dir>.tmp", the ranks exchange their
// statuses (a collective), and only when all succeeded rank 0 writes index.json and renames the
// directory into place (swapping it with a checkpoint already there in one step). A rank's failure (an exception) becomes a DistributedError on every rank;
// a rank that dies or hangs makes the collectives fail on the others (at once, or after the
// group's timeout): never a hang, and the previous checkpoint is untouched. A directory without
// index.json is not a checkpoint.
#include <optional>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"
#include "ember/io/value.h"

namespace ember::distributed {

/// This rank's chunk of a global tensor: `local` covers [offsets, offsets + local.sizes()).
struct Shard {
  std::string name;
  Tensor local;
  std::vector<int64_t> global_shape;
  std::vector<int64_t> offsets;
};

/// What a rank contributes to a checkpoint.
struct CheckpointState {
  /// The same on every rank; only rank 0's is written.
  io::Value replicated;
  /// This rank's own (kept by rank: rank-<r>.ember).
  io::Value per_rank;
  /// This rank's chunks of sharded tensors (the chunks of one name must not overlap).
  std::vector<Shard> shards;
};

/// Writes `state` of every rank of `group` into `dir` (replacing a checkpoint there), atomically;
/// every rank returns once it is committed, or throws DistributedError naming the failed ranks.
void save_checkpoint(ProcessGroup& group, const CheckpointState& state, const std::string& dir);

/// A committed checkpoint directory, read by any number of ranks.
class CheckpointReader {
 public:
  /// Reads `dir`/index.json; an error when it is missing (not committed), malformed or damaged
  /// (its checksum does not match: any single byte changed).
  explicit CheckpointReader(std::string dir);
  /// How many ranks saved it.
  int world_size() const { return world_size_; }
  /// The replicated state (tensors map the file).
  io::Value replicated() const;
  /// Rank r's own state, or nullopt when the saving job had no rank r.
  std::optional<io::Value> per_rank(int rank) const;
  /// The sharded tensors' names, sorted.
  std::vector<std::string> shard_names() const;
  bool has_shard(const std::string& name) const;
  std::vector<int64_t> global_shape(const std::string& name) const;
  DType dtype(const std::string& name) const;
  /// The region [offsets, offsets + shape) of `name`, from the chunks that overlap it only.
  Tensor read(const std::string& name, const std::vector<int64_t>& offsets,
              const std::vector<int64_t>& shape) const;
  /// The whole tensor.
  Tensor read(const std::string& name) const;
  /// Loads every file with every checksum verified; an error naming the file otherwise.
  void verify() const;
  const std::string& dir() const { return dir_; }

 private:
  struct Chunk {
    std::string file, key;
    std::vector<int64_t> offsets, shape;
  };
  struct Entry {
    DType dtype;
    std::vector<int64_t> shape;
    std::vector<Chunk> chunks;
  };
  const Entry& entry(const std::string& name) const;
  std::string dir_;
  int world_size_ = 0;
  std::vector<std::string> files_;
  std::vector<std::pair<std::string, Entry>> entries_;  // sorted by name
};

/// rank-<r>.ember: the file name of rank r's part.
std::string rank_file_name(int rank);

}  // namespace ember::distributed
