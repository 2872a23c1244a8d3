#pragma once
// FSDP's state in checkpoints (checkpoint.h's directories), as PyTorch's DCP holds it.
//
// Sharded: each parameter is saved as this rank's chunk of the flattened parameter (global shape
// [numel], offsets [rank * shard_numel], the padding left out), so a checkpoint saved on N ranks
// loads on M (CheckpointReader reads any region), and into an unwrapped model by name (read
// whole, then viewed in the parameter's shape). Buffers and the optimizer's non-sharded state
// ("step") are written whole by rank 0.
//
//   std::vector<Shard> shards = fsdp_shards(fsdp, "model/");
//   append(shards, fsdp_optimizer_shards(fsdp, opt, "optim/"));
//   save_checkpoint(fsdp.group(), {{}, {}, shards}, dir);
//   CheckpointReader reader(dir);                        // on any number of ranks
//   load_fsdp_shards(fsdp, reader, "model/");  load_fsdp_optimizer_shards(fsdp, opt, reader, "optim/");
//   load_sharded_into(plain_model, reader, "model/");     // no FSDP, no process group
//
// Full: the gathered parameters in their own shapes with the buffers, a state dict that an
// unwrapped model loads by name (PyTorch's FULL_STATE_DICT); every rank takes part in the gathers.
#include <string>
#include <vector>

#include "ember/distributed/checkpoint.h"
#include "ember/distributed/fsdp.h"
#include "ember/optim/optimizer.h"

namespace ember::distributed {

/// This rank's chunks of every parameter (under its first name) and, on rank 0, the buffers.
std::vector<Shard> fsdp_shards(const FSDP& fsdp, const std::string& prefix = "");
/// Reads every parameter's chunk and every buffer from a checkpoint saved at any world size; an
/// error names a missing entry, or the saved and the model's element counts that differ.
void load_fsdp_shards(FSDP& fsdp, const CheckpointReader& reader, const std::string& prefix = "");
/// The optimizer's state ("<prefix>state/<param>/<key>"): tensors of the shard's shape chunked as
/// their parameter, the others (step) whole from rank 0.
std::vector<Shard> fsdp_optimizer_shards(const FSDP& fsdp, const optim::Optimizer& optimizer,
                                         const std::string& prefix = "");
/// Loads that state into an optimizer over the FSDP's shards, at any world size; parameters
/// without saved state start fresh.
void load_fsdp_optimizer_shards(const FSDP& fsdp, optim::Optimizer& optimizer, const CheckpointReader& reader,
                                const std::string& prefix = "");
/// Loads fsdp_shards' checkpoint into an unwrapped model, by name (strict as load_state_dict).
nn::LoadResult load_sharded_into(nn::Module& module, const CheckpointReader& reader, const std::string& prefix = "",
                                 bool strict = true);

/// The whole model's state dict, parameters gathered in their shapes; empty on ranks other than
/// 0 when rank0_only. Every rank calls it.
nn::StateDict fsdp_full_state_dict(FSDP& fsdp, bool rank0_only = true);
/// Loads a whole state dict (every rank passes one, of the unwrapped model's names and shapes)
/// into the shards and buffers; reports as load_state_dict does.
nn::LoadResult fsdp_load_full_state_dict(FSDP& fsdp, const nn::StateDict& state, bool strict = true);

}  // namespace ember::distributed
