#pragma once
// A key-value store the ranks of a job meet through (rendezvous): Gloo exchanges its connection
// addresses over it, and Ember's own coordination (a job's generation, checkpoint status) uses it
// too. Values are bytes. get() and wait() block until the keys exist or the timeout passes.
//
//   auto store = std::make_shared<TCPStore>("127.0.0.1", 29500, /*is_server=*/rank == 0);
//   store->set("ready/" + std::to_string(rank), "1");
//   store->wait({"ready/0", "ready/1"});
//
// Two implementations: TCPStore (served by rank 0, as torchrun's MASTER_ADDR:MASTER_PORT) and
// FileStore (a directory on a file system every rank sees).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

using Milliseconds = std::chrono::milliseconds;

class Store {
 public:
  explicit Store(Milliseconds timeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Sets `key` to `value` (replacing any value).
  virtual void set(const std::string& key, const std::string& value) = 0;
  /// The value of `key`, waiting up to timeout() for it to be set; StoreError naming the key and
  /// the timeout when it is not.
  std::string get(const std::string& key);
  /// Adds `amount` to the integer at `key` (0 when absent) atomically; returns the new value.
  virtual int64_t add(const std::string& key, int64_t amount) = 0;
  /// Whether every key is set, without waiting.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  /// Waits until every key is set; StoreError naming the missing keys after `timeout`.
  void wait(const std::vector<std::string>& keys, Milliseconds timeout);
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

  Milliseconds timeout() const { return timeout_; }
  void set_timeout(Milliseconds timeout) { timeout_ = timeout; }

 protected:
  /// The value if set, without waiting.
  virtual bool try_get(const std::string& key, std::string& value) = 0;

 private:
  Milliseconds timeout_;
};

/// Every key of `store` seen with `prefix` in front: a process group's keys never meet another's.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const std::string& value) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  const std::shared_ptr<Store>& underlying() const { return store_; }

 protected:
  bool try_get(const std::string& key, std::string& value) override;

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace ember::distributed
