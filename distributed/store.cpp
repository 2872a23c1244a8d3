#include "ember/distributed/store.h"

#include <algorithm>
#include <thread>

#include "ember/core/error.h"
#include "ember/distributed/error.h"

namespace ember::distributed {

std::string Store::get(const std::string& key) {
  wait({key}, timeout_);
  std::string value;
  EMBER_INTERNAL_ASSERT(try_get(key, value), "Store: key '", key, "' vanished after wait");
  return value;
}

void Store::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  // NB: polling with a growing pause (up to 20 ms) keeps both stores simple: neither needs to
  // push notifications, and a rendezvous waits a few milliseconds at most longer than it must.
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(200);
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string missing;
      for (const std::string& k : keys) {
        if (check({k})) continue;
        missing += (missing.empty() ? "'" : ", '") + k + "'";
      }
      throw StoreError(::ember::detail::str("Store: timed out after ", timeout.count(),
                                            " ms waiting for ", missing, " to be set"));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store->timeout()), prefix_(std::move(prefix)), store_(std::move(store)) {}

void PrefixStore::set(const std::string& k, const std::string& value) { store_->set(key(k), value); }

int64_t PrefixStore::add(const std::string& k, int64_t amount) { return store_->add(key(k), amount); }

bool PrefixStore::check(const std::vector<std::string>& keys) {
  std::vector<std::string> full;
  for (const std::string& k : keys) full.push_back(key(k));
  return store_->check(full);
}

bool PrefixStore::try_get(const std::string& k, std::string& value) {
  // get() of the underlying store waits; here the key is known to be set (wait ran first).
  if (!store_->check({key(k)})) return false;
  value = store_->get(key(k));
  return true;
}

}  // namespace ember::distributed
