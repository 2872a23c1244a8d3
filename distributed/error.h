#pragma once
// The error every distributed failure becomes: a peer that died or hung, a timeout, a rank whose
// part of a collective checkpoint failed. Python sees it as ember.distributed.DistBackendError
// (a RuntimeError).
#include <string>

#include "ember/core/error.h"

namespace ember::distributed {

class DistributedError : public Error {
 public:
  explicit DistributedError(const std::string& what) : Error(what) {}
};

}  // namespace ember::distributed
