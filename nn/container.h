#pragma once
// Containers: Sequential runs its children in order; ModuleList and ModuleDict only hold and name
// them ("layers.0.weight", "heads.cls.bias").
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

/// Children named "0", "1", ... run one after another on a single tensor.
class Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  Sequential(std::initializer_list<std::shared_ptr<Module>> modules);
  explicit Sequential(const std::vector<std::shared_ptr<Module>>& modules);

  /// Appends a module under the next index.
  void push_back(std::shared_ptr<Module> module);
  /// Appends a module under a name of the caller's choosing.
  void push_back(const std::string& name, std::shared_ptr<Module> module);
  std::shared_ptr<Module> operator[](size_t index) const;
  size_t size() const { return children().size(); }

  Tensor forward(const Tensor& input) override;
};

/// An indexable list of modules ("0", "1", ...), with no forward of its own.
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  ModuleList(std::initializer_list<std::shared_ptr<Module>> modules);

  void push_back(std::shared_ptr<Module> module);
  std::shared_ptr<Module> operator[](size_t index) const;
  /// The module at index, cast to its type: list.at<Linear>(0).
  template <typename M>
  std::shared_ptr<M> at(size_t index) const {
    auto m = std::dynamic_pointer_cast<M>((*this)[index]);
    EMBER_CHECK_TYPE(m != nullptr, "ModuleList: element ", index, " is a ", (*this)[index]->type_name());
    return m;
  }
  size_t size() const { return children().size(); }
};

/// Modules by name, in insertion order, with no forward of its own.
class ModuleDict : public Module {
 public:
  ModuleDict() : Module("ModuleDict") {}
  ModuleDict(std::initializer_list<std::pair<std::string, std::shared_ptr<Module>>> modules);

  void insert(const std::string& key, std::shared_ptr<Module> module);
  std::shared_ptr<Module> operator[](const std::string& key) const { return child(key); }
  bool contains(const std::string& key) const { return has_child(key); }
  size_t size() const { return children().size(); }
};

}  // namespace ember::nn
