#include "ember/distributed/fsdp_unit.h"

#include <algorithm>

#include "ember/autograd/grad_mode.h"
#include "ember/core/copy.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/core/storage.h"

namespace ember::distributed {
namespace {

Tensor flat(const Tensor& t) { return t.reshape({t.numel()}); }

}  // namespace

ShardedUnit::ShardedUnit(std::string name, std::vector<ShardedParam> params, std::shared_ptr<ProcessGroup> group,
                         ShardedUnitOptions options)
    : name_(std::move(name)), params_(std::move(params)), group_(std::move(group)) {
  EMBER_CHECK_VALUE(group_ != nullptr, "FSDP unit '", name_, "': no process group");
  const int W = world(), rank = group_->rank();
  NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    ShardedParam& p = params_[i];
    EMBER_CHECK_VALUE(!p.slots.empty(), "FSDP unit '", name_, "': parameter '", p.name, "' has no module");
    const Tensor t = p.slots.front().first->parameter(p.slots.front().second);
    p.shape.assign(t.sizes().begin(), t.sizes().end());
    p.numel = t.numel();
    p.shard_numel = (p.numel + W - 1) / W;
    p.requires_grad = t.requires_grad();
    const bool floating = is_floating(t.dtype());
    const DType full_dtype = floating && options.param_dtype ? *options.param_dtype : t.dtype();
    const DType reduce_dtype = floating && options.reduce_dtype ? *options.reduce_dtype : full_dtype;

    auto g = std::find_if(groups_.begin(), groups_.end(),
                          [&](const Group& x) { return x.dtype == full_dtype && x.reduce_dtype == reduce_dtype; });
    if (g == groups_.end()) g = groups_.insert(groups_.end(), Group{full_dtype, reduce_dtype, {}, 0});
    p.group = static_cast<size_t>(g - groups_.begin());
    p.offset = g->total;
    g->total += p.shard_numel;
    g->params.push_back(i);

    const TensorOptions like = TensorOptions().dtype(t.dtype()).device(t.device());
    p.shard = zeros({p.shard_numel}, like);
    if (const int64_t n = p.count_on(rank); n > 0)
      copy_data(p.shard.narrow(0, 0, n), flat(t).narrow(0, rank * p.shard_numel, n));
    p.shard.set_requires_grad(p.requires_grad);
    p.full = empty(p.shape, like.dtype(full_dtype));
    p.full.set_requires_grad(p.requires_grad);
    p.full.storage()->release();
    for (auto& [module, slot] : p.slots) module->replace_parameter(slot, p.shard);
    if (p.requires_grad) ++needs_grad_;
  }
  ready_.assign(params_.size(), false);
}

ShardedUnit::~ShardedUnit() {
  // A collective still running writes into buffers this unit holds: let it finish first.
  for (auto* list : {&gathers_, &reductions_})
    for (Pending& p : *list) try {
        if (p.work) p.work->wait();
      } catch (...) {
      }
}

void ShardedUnit::start_unshard() {
  if (unsharded_ || !gathers_.empty()) return;
  NoGradGuard no_grad;
  const int W = world();
  for (size_t k = 0; k < groups_.size(); ++k) {
    const Group& g = groups_[k];
    const Device device = params_[g.params.front()].shard.device();
    Tensor input = empty({g.total}, TensorOptions().dtype(g.dtype).device(device));
    for (size_t i : g.params) copy_data(input.narrow(0, params_[i].offset, params_[i].shard_numel), params_[i].shard);
    Pending pending;
    pending.output = input;
    if (W == 1) {
      pending.buffer = input.view({1, g.total});
    } else {
      pending.buffer = empty({W, g.total}, TensorOptions().dtype(g.dtype).device(device));
      std::vector<Tensor> rows;
      for (int r = 0; r < W; ++r) rows.push_back(pending.buffer.select(0, r));
      pending.work = group_->allgather(rows, input);
    }
    gathers_.push_back(std::move(pending));
  }
}

void ShardedUnit::copy_out(const Group& g, const Tensor& buffer) {
  for (size_t i : g.params) {
    ShardedParam& p = params_[i];
    p.full.storage()->reallocate();
    const Tensor dst = p.full.view({p.numel});
    for (int r = 0; r < world(); ++r)
      if (const int64_t n = p.count_on(r); n > 0)
        copy_data(dst.narrow(0, r * p.shard_numel, n), buffer.select(0, r).narrow(0, p.offset, n));
  }
}

void ShardedUnit::unshard() {
  if (unsharded_) return;
  start_unshard();
  NoGradGuard no_grad;
  for (size_t k = 0; k < groups_.size(); ++k) {
    if (gathers_[k].work) gathers_[k].work->wait();
    copy_out(groups_[k], gathers_[k].buffer);
  }
  gathers_.clear();
  for (ShardedParam& p : params_)
    for (auto& [module, slot] : p.slots) module->replace_parameter(slot, p.full);
  unsharded_ = true;
}

void ShardedUnit::reshard() {
  for (Pending& p : gathers_)
    if (p.work) p.work->wait();  // a prefetch that forward did not use
  gathers_.clear();
  if (!unsharded_) return;
  for (ShardedParam& p : params_) {
    for (auto& [module, slot] : p.slots) module->replace_parameter(slot, p.shard);
    p.full.storage()->release();
  }
  unsharded_ = false;
}

void ShardedUnit::write_back() {
  if (!unsharded_) return;
  NoGradGuard no_grad;
  const int rank = group_->rank();
  for (ShardedParam& p : params_)
    if (const int64_t n = p.count_on(rank); n > 0)
      p.shard.narrow(0, 0, n).copy_(flat(p.full).narrow(0, rank * p.shard_numel, n));
}

void ShardedUnit::begin_backward() {
  unshard();
  if (in_backward_) return;
  in_backward_ = true;
  ready_.assign(params_.size(), false);
  pending_ready_ = 0;
}

bool ShardedUnit::mark_ready(size_t index) {
  if (!in_backward_) begin_backward();
  if (!ready_[index]) {
    ready_[index] = true;
    ++pending_ready_;
  }
  return pending_ready_ == needs_grad_;
}

void ShardedUnit::start_reduce(bool reshard_after) {
  in_backward_ = false;
  NoGradGuard no_grad;
  const int W = world();
  for (size_t k = 0; k < groups_.size(); ++k) {
    const Group& g = groups_[k];
    if (std::none_of(g.params.begin(), g.params.end(), [&](size_t i) { return params_[i].requires_grad; })) continue;
    const Device device = params_[g.params.front()].shard.device();
    Pending pending;
    pending.buffer = empty({W, g.total}, TensorOptions().dtype(g.reduce_dtype).device(device));
    for (size_t i : g.params) {
      ShardedParam& p = params_[i];
      const Tensor grad = p.requires_grad ? p.full.grad() : Tensor();
      const Tensor grad_flat = grad.defined() ? flat(grad) : Tensor();
      for (int r = 0; r < W; ++r) {
        const Tensor dst = pending.buffer.select(0, r).narrow(0, p.offset, p.shard_numel);
        const int64_t n = grad.defined() ? p.count_on(r) : 0;
        if (n > 0) copy_data(dst.narrow(0, 0, n), grad_flat.narrow(0, r * p.shard_numel, n));
        if (n < p.shard_numel) fill_data(dst.narrow(0, n, p.shard_numel - n), 0);
      }
      if (p.requires_grad) p.full.set_grad(Tensor());
    }
    if (W == 1) {
      pending.output = pending.buffer.select(0, 0);
    } else {
      pending.output = empty({g.total}, TensorOptions().dtype(g.reduce_dtype).device(device));
      std::vector<Tensor> rows;
      for (int r = 0; r < W; ++r) rows.push_back(pending.buffer.select(0, r));
      pending.work = group_->reduce_scatter(pending.output, rows, ReduceOp::Avg);
    }
    pending.group = k;
    reductions_.push_back(std::move(pending));
  }
  if (reshard_after) reshard();
}

void ShardedUnit::end_backward_unreduced() {
  in_backward_ = false;
  reshard();
}

void ShardedUnit::finish_reduce() {
  NoGradGuard no_grad;
  std::vector<Pending> reductions = std::move(reductions_);
  reductions_.clear();
  for (Pending& pending : reductions) {
    if (pending.work) pending.work->wait();
    for (size_t i : groups_[pending.group].params) {
      ShardedParam& p = params_[i];
      if (!p.requires_grad) continue;
      Tensor g = pending.output.narrow(0, p.offset, p.shard_numel);
      if (g.dtype() != p.shard.dtype()) g = copy_as(g, p.shard.dtype(), p.shard.device());
      if (p.shard.grad().defined())
        p.shard.mutable_grad().add_(g);
      else
        p.shard.set_grad(g);
    }
  }
}

void ShardedUnit::load_full(size_t index, const Tensor& value) {
  ShardedParam& p = params_.at(index);
  EMBER_CHECK_VALUE(value.sizes() == IntArrayRef(p.shape), "FSDP: the value for '", p.name, "' has shape ",
                    shape_str(value.sizes()), ", the parameter ", shape_str(p.shape));
  NoGradGuard no_grad;
  const int rank = group_->rank();
  if (const int64_t n = p.count_on(rank); n > 0)
    p.shard.narrow(0, 0, n).copy_(flat(value).narrow(0, rank * p.shard_numel, n));
  if (unsharded_) p.full.copy_(value);
}

Tensor ShardedUnit::gather_full(size_t index) {
  ShardedParam& p = params_.at(index);
  NoGradGuard no_grad;
  const TensorOptions like = TensorOptions().dtype(p.shard.dtype()).device(p.shard.device());
  const int W = world();
  Tensor buffer = empty({W, p.shard_numel}, like);
  if (W == 1) {
    copy_data(buffer.select(0, 0), p.shard);
  } else {
    std::vector<Tensor> rows;
    for (int r = 0; r < W; ++r) rows.push_back(buffer.select(0, r));
    group_->allgather(rows, p.shard.detach())->wait();
  }
  return buffer.view({W * p.shard_numel}).narrow(0, 0, p.numel).reshape(p.shape).clone();
}

}  // namespace ember::distributed
