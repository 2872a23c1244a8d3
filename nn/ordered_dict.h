#pragma once
// A string-keyed dictionary that remembers insertion order: registration order is the order of
// named_parameters(), state_dict() and checkpoints.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"

namespace ember::nn {

template <typename V>
class OrderedDict {
 public:
  using Item = std::pair<std::string, V>;

  /// Adds key at the end; the key must be new.
  V& insert(std::string key, V value) {
    EMBER_INTERNAL_ASSERT(!contains(key), "OrderedDict: duplicate key ", key);
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().second;
  }
  /// Sets key, keeping its position if it exists.
  V& set(const std::string& key, V value) {
    if (V* v = find(key)) return *v = std::move(value);
    return insert(key, std::move(value));
  }
  bool contains(const std::string& key) const { return index_.count(key) > 0; }
  V* find(const std::string& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  const V* find(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  /// The value of key; a KeyError naming the key when absent.
  const V& at(const std::string& key) const {
    const V* v = find(key);
    EMBER_CHECK_KEY(v != nullptr, "no entry named '", key, "'");
    return *v;
  }
  V& at(const std::string& key) { return const_cast<V&>(std::as_const(*this).at(key)); }
  bool erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
    index_.clear();
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].first, i);
    return true;
  }

  const std::vector<Item>& items() const { return items_; }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const Item& item : items_) out.push_back(item.first);
    return out;
  }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember::nn
