#include "ember/nn/container.h"

namespace ember::nn {
namespace {
std::shared_ptr<Module> at_index(const Module& m, size_t index) {
  auto kids = m.children();
  EMBER_CHECK_INDEX(index < kids.size(), m.type_name(), ": index ", index, " out of range for ",
                    kids.size(), " modules");
  return kids[index];
}
}  // namespace

Sequential::Sequential(std::initializer_list<std::shared_ptr<Module>> modules) : Sequential() {
  for (const auto& m : modules) push_back(m);
}
Sequential::Sequential(const std::vector<std::shared_ptr<Module>>& modules) : Sequential() {
  for (const auto& m : modules) push_back(m);
}

void Sequential::push_back(std::shared_ptr<Module> module) {
  push_back(std::to_string(children().size()), std::move(module));
}
void Sequential::push_back(const std::string& name, std::shared_ptr<Module> module) {
  register_module(name, std::move(module));
}
std::shared_ptr<Module> Sequential::operator[](size_t index) const { return at_index(*this, index); }

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& m : children()) x = (*m)(x);  // NB: with each child's hooks
  return x;
}

ModuleList::ModuleList(std::initializer_list<std::shared_ptr<Module>> modules) : ModuleList() {
  for (const auto& m : modules) push_back(m);
}
void ModuleList::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(children().size()), std::move(module));
}
std::shared_ptr<Module> ModuleList::operator[](size_t index) const { return at_index(*this, index); }

ModuleDict::ModuleDict(std::initializer_list<std::pair<std::string, std::shared_ptr<Module>>> modules)
    : ModuleDict() {
  for (const auto& [k, m] : modules) insert(k, m);
}
void ModuleDict::insert(const std::string& key, std::shared_ptr<Module> module) {
  register_module(key, std::move(module));
}

}  // namespace ember::nn
