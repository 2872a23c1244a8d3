#include "ember/distributed/work.h"

#include "ember/core/error.h"
#include "ember/distributed/error.h"

namespace ember::distributed {

void FutureWork::wait(std::optional<Milliseconds> timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  Milliseconds limit = timeout.value_or(timeout_);
  if (!done_cv_.wait_for(lock, limit, [&] { return done_; })) {
    std::string who = suspects_ ? suspects_() : "";
    throw DistributedError(::ember::detail::str(what_, ": timed out after ", limit.count(),
                                                " ms waiting for the operation to finish",
                                                who.empty() ? "" : "; " + who));
  }
  if (error_) std::rethrow_exception(error_);
}

bool FutureWork::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

void FutureWork::complete(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    error_ = std::move(error);
  }
  done_cv_.notify_all();
}

}  // namespace ember::distributed
