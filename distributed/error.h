#pragma once
// The errors of distributed failures. DistributedError: a peer that died or hung, a timeout, a
// rank whose part of a collective checkpoint failed (Python: ember.distributed.DistBackendError).
// StoreError, one of them: the rendezvous store did not answer, or a key was not set, within the
// timeout (Python: DistStoreError, as torch.distributed raises for a rendezvous that times out).
// Both are ember.distributed.DistError (a RuntimeError) in Python, as torch's.
#include <string>

#include "ember/core/error.h"

namespace ember::distributed {

class DistributedError : public Error {
 public:
  explicit DistributedError(const std::string& what) : Error(what) {}
};

class StoreError : public DistributedError {
 public:
  explicit StoreError(const std::string& what) : DistributedError(what) {}
};

}  // namespace ember::distributed
