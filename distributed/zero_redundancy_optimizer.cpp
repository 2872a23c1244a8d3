#include "ember/distributed/zero_redundancy_optimizer.h"

#include <algorithm>

#include "ember/core/error.h"
#include "ember/distributed/coalesced.h"
#include "ember/distributed/init.h"

namespace ember::distributed {

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(optim::NamedParameters params, const Factory& make,
                                                 std::shared_ptr<ProcessGroup> group)
    : params_(std::move(params)), group_(group ? std::move(group) : default_group_ptr()) {
  // Greedy by size: each parameter, largest first (ties by name), to the lightest rank so far.
  std::vector<size_t> order(params_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return params_[a].second.numel() > params_[b].second.numel();
  });
  std::vector<int64_t> load(group_->size(), 0);
  owner_.assign(params_.size(), 0);
  for (size_t i : order) {
    int r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    owner_[i] = r;
    load[r] += params_[i].second.numel();
  }
  optim::NamedParameters mine;
  for (size_t i = 0; i < params_.size(); ++i)
    if (owner_[i] == group_->rank()) mine.push_back(params_[i]);
  local_ = make(std::move(mine));
  EMBER_CHECK_VALUE(local_ != nullptr, "ZeroRedundancyOptimizer: the factory returned no optimizer");
}

int ZeroRedundancyOptimizer::owner(const std::string& name) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].first == name) return owner_[i];
  throw KeyError("ZeroRedundancyOptimizer: no parameter '" + name + "'");
}

void ZeroRedundancyOptimizer::step() {
  if (!local_->param_groups().empty() && !local_->param_groups()[0].params.empty()) local_->step();
  for (int r = 0; r < group_->size(); ++r) {
    std::vector<Tensor> share;
    for (size_t i = 0; i < params_.size(); ++i)
      if (owner_[i] == r) share.push_back(params_[i].second);
    broadcast_coalesced(*group_, share, r);
  }
}

void ZeroRedundancyOptimizer::zero_grad(bool set_to_none) {
  for (auto& [name, p] : params_) {
    if (!p.grad().defined()) continue;
    if (set_to_none) p.set_grad(Tensor());
    else p.grad().zero_();
  }
}

std::vector<Shard> ZeroRedundancyOptimizer::state_shards(const std::string& prefix) const {
  std::vector<Shard> out;
  for (const auto& [param, state] : local_->state())
    for (const auto& [key, t] : state) {
      std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
      out.push_back({prefix + "state/" + param + "/" + key, t, shape, std::vector<int64_t>(shape.size(), 0)});
    }
  return out;
}

void ZeroRedundancyOptimizer::load_state_shards(const CheckpointReader& reader, const std::string& prefix) {
  optim::OptimizerStateDict sd = local_->state_dict();
  sd.state.clear();
  std::vector<std::string> names = reader.shard_names();
  for (const auto& group : sd.param_groups)
    for (const std::string& param : group.params) {
      const std::string start = prefix + "state/" + param + "/";
      auto it = std::lower_bound(names.begin(), names.end(), start);
      for (; it != names.end() && it->rfind(start, 0) == 0; ++it)
        sd.state[param][it->substr(start.size())] = reader.read(*it);
    }
  local_->load_state_dict(sd);
}

}  // namespace ember::distributed
