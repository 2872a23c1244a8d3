#include "ember/distributed/reducer.h"

#include "ember/autograd/backward_hooks.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/distributed/error.h"
#include "ember/ops/ops.h"

namespace ember::distributed {

Reducer::Reducer(std::vector<std::pair<std::string, Tensor>> params,
                 std::shared_ptr<ProcessGroup> group, ReducerOptions options)
    : group_(std::move(group)), options_(options) {
  EMBER_CHECK_VALUE(group_ != nullptr, "DistributedDataParallel: the process group is null");
  EMBER_CHECK_VALUE(options_.bucket_cap_bytes > 0, "DistributedDataParallel: bucket_cap_mb must be "
                    "positive, got ", options_.bucket_cap_bytes, " bytes");
  for (auto& [name, p] : params)
    if (p.requires_grad()) params_.emplace_back(name, p);
  // Buckets in reverse registration order, one dtype each, closed once they reach the cap.
  bucket_of_.resize(params_.size());
  int64_t bytes = 0;
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k].second;
    if (buckets_.empty() || bytes >= options_.bucket_cap_bytes ||
        params_[buckets_.back().params.front()].second.dtype() != p.dtype()) {
      buckets_.emplace_back();
      bytes = 0;
    }
    Bucket& b = buckets_.back();
    b.offsets.push_back(b.params.empty() ? 0 : b.offsets.back() + params_[b.params.back()].second.numel());
    b.params.push_back(k);
    bucket_of_[k] = buckets_.size() - 1;
    bytes += static_cast<int64_t>(p.nbytes());
  }
  for (Bucket& b : buckets_) {
    int64_t n = b.offsets.back() + params_[b.params.back()].second.numel();
    const Tensor& first = params_[b.params.front()].second;
    b.buffer = zeros({n}, TensorOptions(first.dtype()).device(first.device()));
  }
  for (size_t k = 0; k < params_.size(); ++k)
    hooks_.push_back(autograd::register_post_accumulate_grad_hook(
        params_[k].second, [this, k](const Tensor&) { on_grad_ready(k); }));
  reset();
}

Reducer::~Reducer() {
  for (size_t k = 0; k < params_.size(); ++k)
    autograd::remove_post_accumulate_grad_hook(params_[k].second, hooks_[k]);
  // NB: an allreduce still in flight writes into a bucket's buffer: let it end first.
  for (Bucket& b : buckets_)
    if (b.work) try {
        b.work->wait();
      } catch (...) {
      }
}

std::vector<std::vector<std::string>> Reducer::bucket_names() const {
  std::vector<std::vector<std::string>> out;
  for (const Bucket& b : buckets_) {
    out.emplace_back();
    for (size_t k : b.params) out.back().push_back(params_[k].first);
  }
  return out;
}

void Reducer::reset() {
  ready_.assign(params_.size(), false);
  used_.assign(params_.size(), false);
  for (Bucket& b : buckets_) {
    b.pending = b.params.size();
    b.work.reset();
  }
  next_bucket_ = 0;
  callback_queued_ = false;
}

void Reducer::on_grad_ready(size_t k) {
  if (!sync_) return;
  if (!callback_queued_) {
    callback_queued_ = true;
    autograd::queue_callback([this] { finish_backward(); });
  }
  EMBER_CHECK(!ready_[k], "DistributedDataParallel: parameter '", params_[k].first, "' got its "
              "gradient twice in one backward pass (a reentrant backward, or the parameter in two "
              "graphs backed up together); DDP averages each gradient once");
  ready_[k] = true;
  used_[k] = true;
  if (--buckets_[bucket_of_[k]].pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0)
    launch(buckets_[next_bucket_++]);
}

void Reducer::launch(Bucket& b) {
  NoGradGuard no_grad;
  for (size_t i = 0; i < b.params.size(); ++i) {
    const Tensor& p = params_[b.params[i]].second;
    Tensor slot = b.buffer.slice(0, b.offsets[i], b.offsets[i] + p.numel());
    const Tensor& g = p.grad();
    if (g.defined() && used_[b.params[i]])
      slot.copy_(g.reshape({p.numel()}));
    else
      slot.zero_();
  }
  b.work = group_->allreduce(b.buffer, ReduceOp::Avg);
}

void Reducer::finish_backward() {
  std::vector<std::string> missing;
  for (size_t k = 0; k < params_.size(); ++k)
    if (!ready_[k]) missing.push_back(params_[k].first);
  if (!missing.empty() && !options_.find_unused_parameters) {
    std::string names;
    for (const std::string& m : missing) names += (names.empty() ? "'" : ", '") + m + "'";
    // NB: the buckets already started must finish before the state is reset.
    for (Bucket& b : buckets_)
      if (b.work) try {
          b.work->wait();
        } catch (...) {
        }
    reset();
    throw ValueError(::ember::detail::str(
        "DistributedDataParallel: these parameters received no gradient in this backward pass: ",
        names, ". Every parameter that requires grad must take part in the loss on every rank; if "
        "some are unused on purpose, construct DistributedDataParallel with "
        "find_unused_parameters=true (or set requires_grad=false on them)"));
  }
  // Locally unused parameters contribute zeros; their buckets start now, in order.
  for (size_t k = 0; k < params_.size(); ++k)
    if (!ready_[k]) {
      ready_[k] = true;
      --buckets_[bucket_of_[k]].pending;
    }
  launch_ready_buckets();
  // Which parameters any rank used (after every bucket, so all ranks issue the same sequence).
  Tensor used_anywhere;
  if (options_.find_unused_parameters) {
    used_anywhere = zeros({static_cast<int64_t>(params_.size())}, TensorOptions(kUInt8).device(group_->device()));
    uint8_t* u = used_anywhere.data_ptr<uint8_t>();
    for (size_t k = 0; k < params_.size(); ++k) u[k] = used_[k];
    group_->allreduce(used_anywhere, ReduceOp::Max)->wait();
  }
  NoGradGuard no_grad;
  std::exception_ptr failure;
  for (Bucket& b : buckets_) {
    try {
      b.work->wait();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) {
    reset();
    std::rethrow_exception(failure);
  }
  for (Bucket& b : buckets_) {
    for (size_t i = 0; i < b.params.size(); ++i) {
      size_t k = b.params[i];
      if (used_anywhere.defined() && used_anywhere.data_ptr<uint8_t>()[k] == 0) continue;
      const Tensor& p = params_[k].second;
      Tensor avg = b.buffer.slice(0, b.offsets[i], b.offsets[i] + p.numel()).view(p.sizes());
      if (p.grad().defined())
        p.grad().copy_(avg);
      else
        p.set_grad(avg.clone());
    }
  }
  reset();
}

}  // namespace ember::distributed
