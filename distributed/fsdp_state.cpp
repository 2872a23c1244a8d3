#include "ember/distributed/fsdp_state.h"

#include <algorithm>
#include <map>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"

namespace ember::distributed {
namespace {

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// This rank's part of `key`, saved as a flattened parameter of p.numel elements (or, when some
// other writer saved it in its own shape, read whole and flattened), padded to the shard's size.
Tensor read_part(const CheckpointReader& reader, const std::string& key, const ShardedParam& p, int rank) {
  const std::vector<int64_t> saved = reader.global_shape(key);
  EMBER_CHECK_VALUE(numel_of(saved) == p.numel, "FSDP: '", key, "' in ", reader.dir(), " has ", numel_of(saved),
                    " elements (", shape_str(saved), "), the model's parameter ", p.numel, " (", shape_str(p.shape),
                    ")");
  const int64_t start = p.start_on(rank), count = p.count_on(rank);
  Tensor out = zeros({p.shard_numel}, TensorOptions().dtype(reader.dtype(key)));
  if (count == 0) return out;
  Tensor region = saved.size() == 1 ? reader.read(key, {start}, {count})
                                    : reader.read(key).reshape({p.numel}).narrow(0, start, count);
  out.narrow(0, 0, count).copy_(region);
  return out;
}

bool is_param_name(const FSDP& fsdp, const std::string& name) { return fsdp.find_param(name).has_value(); }

const ShardedParam& param_at(const FSDP& fsdp, std::pair<size_t, size_t> at) {
  return fsdp.unit(at.first).params()[at.second];
}

}  // namespace

std::vector<Shard> fsdp_shards(const FSDP& fsdp, const std::string& prefix) {
  NoGradGuard no_grad;
  const int rank = fsdp.group().rank();
  std::vector<Shard> out;
  for (size_t u = 0; u < fsdp.num_units(); ++u)
    for (const ShardedParam& p : fsdp.unit(u).params())
      if (const int64_t count = p.count_on(rank); count > 0)
        out.push_back({prefix + p.name, p.shard.detach().narrow(0, 0, count), {p.numel}, {p.start_on(rank)}});
  if (rank == 0)
    for (const auto& [name, t] : fsdp.module_ptr()->state_dict())
      if (!is_param_name(fsdp, name)) {
        std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
        out.push_back({prefix + name, t.detach(), shape, std::vector<int64_t>(shape.size(), 0)});
      }
  return out;
}

void load_fsdp_shards(FSDP& fsdp, const CheckpointReader& reader, const std::string& prefix) {
  NoGradGuard no_grad;
  const int rank = fsdp.group().rank();
  auto require = [&](const std::string& key) {
    EMBER_CHECK_KEY(reader.has_shard(key), "FSDP: the checkpoint ", reader.dir(), " has no '", key, "'");
  };
  for (size_t u = 0; u < fsdp.num_units(); ++u)
    for (const ShardedParam& p : fsdp.unit(u).params()) {
      require(prefix + p.name);
      p.shard.copy_(read_part(reader, prefix + p.name, p, rank));
    }
  for (const auto& [name, t] : fsdp.module().state_dict())
    if (!is_param_name(fsdp, name)) {
      require(prefix + name);
      Tensor saved = reader.read(prefix + name);
      EMBER_CHECK_VALUE(saved.sizes() == t.sizes(), "FSDP: '", prefix + name, "' in ", reader.dir(), " has shape ",
                        shape_str(saved.sizes()), ", the model's buffer ", shape_str(t.sizes()));
      t.copy_(saved);
    }
}

std::vector<Shard> fsdp_optimizer_shards(const FSDP& fsdp, const optim::Optimizer& optimizer,
                                         const std::string& prefix) {
  NoGradGuard no_grad;
  const int rank = fsdp.group().rank();
  std::vector<Shard> out;
  for (const auto& [name, state] : optimizer.state()) {
    const auto at = fsdp.find_param(name);
    for (const auto& [key, t] : state) {
      const std::string full = prefix + "state/" + name + "/" + key;
      if (at && t.dim() == 1 && t.size(0) == param_at(fsdp, *at).shard_numel) {
        const ShardedParam& p = param_at(fsdp, *at);
        if (const int64_t count = p.count_on(rank); count > 0)
          out.push_back({full, t.narrow(0, 0, count), {p.numel}, {p.start_on(rank)}});
      } else if (rank == 0) {
        std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
        out.push_back({full, t, shape, std::vector<int64_t>(shape.size(), 0)});
      }
    }
  }
  return out;
}

void load_fsdp_optimizer_shards(const FSDP& fsdp, optim::Optimizer& optimizer, const CheckpointReader& reader,
                                const std::string& prefix) {
  const int rank = fsdp.group().rank();
  optim::OptimizerStateDict sd = optimizer.state_dict();
  sd.state.clear();
  const std::vector<std::string> names = reader.shard_names();
  for (const auto& group : sd.param_groups)
    for (const std::string& param : group.params) {
      const auto at = fsdp.find_param(param);
      const std::string start = prefix + "state/" + param + "/";
      for (auto it = std::lower_bound(names.begin(), names.end(), start); it != names.end() && it->rfind(start, 0) == 0;
           ++it) {
        const std::vector<int64_t> saved = reader.global_shape(*it);
        const bool chunked = at && saved.size() == 1 && saved[0] == param_at(fsdp, *at).numel;
        sd.state[param][it->substr(start.size())] =
            chunked ? read_part(reader, *it, param_at(fsdp, *at), rank) : reader.read(*it);
      }
    }
  optimizer.load_state_dict(sd);
}

nn::LoadResult load_sharded_into(nn::Module& module, const CheckpointReader& reader, const std::string& prefix,
                                 bool strict) {
  const nn::StateDict model = module.state_dict();
  nn::StateDict state;
  for (const auto& [name, t] : model) {
    if (!reader.has_shard(prefix + name)) continue;
    Tensor saved = reader.read(prefix + name);
    state.insert(name, saved.numel() == t.numel() ? saved.reshape(t.sizes()) : saved);
  }
  for (const std::string& key : reader.shard_names())
    if (key.rfind(prefix, 0) == 0 && key.rfind(prefix + "state/", 0) != 0 && !model.contains(key.substr(prefix.size())))
      state.insert(key.substr(prefix.size()), reader.read(key));
  return module.load_state_dict(state, strict);
}

nn::StateDict fsdp_full_state_dict(FSDP& fsdp, bool rank0_only) {
  const bool keep = !rank0_only || fsdp.group().rank() == 0;
  std::map<std::pair<size_t, size_t>, Tensor> gathered;
  nn::StateDict out;
  for (const auto& [name, t] : fsdp.module().state_dict()) {
    Tensor value = t.detach();
    if (const auto at = fsdp.find_param(name)) {
      auto it = gathered.find(*at);
      if (it == gathered.end()) it = gathered.emplace(*at, fsdp.mutable_unit(at->first).gather_full(at->second)).first;
      value = it->second;
    }
    if (keep) out.insert(name, value);
  }
  return out;
}

nn::LoadResult fsdp_load_full_state_dict(FSDP& fsdp, const nn::StateDict& state, bool strict) {
  NoGradGuard no_grad;
  const int rank = fsdp.group().rank();
  nn::StateDict local;
  for (const auto& [name, value] : state) {
    const auto at = fsdp.find_param(name);
    if (!at) {
      local.insert(name, value);
      continue;
    }
    const ShardedParam& p = param_at(fsdp, *at);
    EMBER_CHECK_VALUE(value.sizes() == IntArrayRef(p.shape), "shape mismatch for '", name, "': checkpoint ",
                      shape_str(value.sizes()), ", model ", shape_str(p.shape));
    const int64_t count = p.count_on(rank);
    Tensor slice = zeros({p.shard_numel}, TensorOptions().dtype(value.dtype()));
    if (count > 0) slice.narrow(0, 0, count).copy_(value.reshape({p.numel}).narrow(0, p.start_on(rank), count));
    local.insert(name, slice);
  }
  return fsdp.module().load_state_dict(local, strict);
}

}  // namespace ember::distributed
