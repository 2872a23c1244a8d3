#pragma once
// The handle of one collective or point-to-point operation a ProcessGroup started: wait() blocks
// until it finished and rethrows its failure (a dead or hung peer, a timeout) as DistributedError.
//
//   auto work = group.allreduce(grad, ReduceOp::Avg);   // returns at once
//   ...                                                 // compute meanwhile
//   work->wait();                                       // grad now holds the average
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ember/distributed/store.h"

namespace ember::distributed {

class Work {
 public:
  virtual ~Work() = default;
  /// Blocks until the operation finished, at most `timeout` (default: the group's); throws
  /// DistributedError when it failed or did not finish in time (the group is then unusable).
  virtual void wait(std::optional<Milliseconds> timeout = std::nullopt) = 0;
  /// Whether it finished (successfully or not), without blocking.
  virtual bool is_completed() = 0;
};

using WorkPtr = std::shared_ptr<Work>;

/// A Work that another thread completes (the Gloo group's worker does): complete() with no error
/// or with the exception the operation threw.
class FutureWork : public Work {
 public:
  /// `what` names the operation in errors ("allreduce"); `timeout` is the group's default;
  /// `suspects`, when given, says which peers are to blame when wait() times out.
  FutureWork(std::string what, Milliseconds timeout, std::function<std::string()> suspects = nullptr)
      : what_(std::move(what)), timeout_(timeout), suspects_(std::move(suspects)) {}
  void wait(std::optional<Milliseconds> timeout = std::nullopt) override;
  bool is_completed() override;
  void complete(std::exception_ptr error = nullptr);

 private:
  std::string what_;
  Milliseconds timeout_;
  std::function<std::string()> suspects_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::exception_ptr error_;
};

/// A Work that finished before it was returned (world size 1, zero elements).
class CompletedWork : public Work {
 public:
  void wait(std::optional<Milliseconds> = std::nullopt) override {}
  bool is_completed() override { return true; }
};

}  // namespace ember::distributed
