#include "ember/io/cereal_archive.h"

namespace ember::io {

ValueOutputArchive::ValueOutputArchive() : OutputArchive<ValueOutputArchive>(this) {
  frames_.push_back(Frame{"", Value::dict(), false, 0});
}

std::string ValueOutputArchive::take_name() {
  std::string name = next_name_ ? next_name_ : "value" + std::to_string(frames_.back().unnamed++);
  next_name_ = nullptr;
  return name;
}

void ValueOutputArchive::attach(Frame& parent, const std::string& name, Value v) {
  if (parent.array) parent.value.push_back(std::move(v));
  else parent.value.set(name, std::move(v));
}

void ValueOutputArchive::startNode() {
  std::string name = frames_.back().array ? "" : take_name();
  frames_.push_back(Frame{std::move(name), Value::dict(), false, 0});
}

void ValueOutputArchive::makeArray() {
  Frame& f = frames_.back();
  f.array = true;
  f.value = Value::list();
}

void ValueOutputArchive::finishNode() {
  Frame done = std::move(frames_.back());
  frames_.pop_back();
  attach(frames_.back(), done.name, std::move(done.value));
}

void ValueOutputArchive::saveLeaf(Value v) {
  Frame& f = frames_.back();
  attach(f, f.array ? "" : take_name(), std::move(v));
}

ValueInputArchive::ValueInputArchive(const Value& root, std::string where)
    : InputArchive<ValueInputArchive>(this), where_(std::move(where)) {
  frames_.push_back(Frame{&root, "", 0});
}

const Value& ValueInputArchive::next_child(std::string& path) {
  Frame& f = frames_.back();
  const Value& node = *f.value;
  auto at = [&](const std::string& part) { return f.path.empty() ? part : f.path + "/" + part; };
  if (next_name_ && node.is_dict()) {
    const char* name = next_name_;
    next_name_ = nullptr;
    const Value* child = node.find(name);
    EMBER_CHECK_KEY(child != nullptr, where_, ": '", at(name), "' is missing");
    path = frames_.size() == 1 ? "" : at(name);
    // As cereal's own archives: unnamed reads go on after the last named one.
    f.next = static_cast<size_t>(child - node.items().data()) + 1;
    return *child;
  }
  next_name_ = nullptr;
  EMBER_CHECK_TYPE(node.is_dict() || node.is_list() || node.is_tuple(), where_, ": '", f.path,
                   "' is a ", node.type_name(), ", expected a dict or a list");
  EMBER_CHECK_INDEX(f.next < node.size(), where_, ": '", f.path.empty() ? "<root>" : f.path,
                    "' has ", node.size(), " entries; entry ", f.next, " was asked for");
  size_t i = f.next++;
  // NB: the root holds what was archived under value0; paths start below it.
  path = frames_.size() == 1 ? "" : at(node.is_dict() ? node.keys()[i].str() : std::to_string(i));
  return node.items()[i];
}

void ValueInputArchive::startNode() {
  std::string path;
  const Value& child = next_child(path);
  EMBER_CHECK_TYPE(child.is_dict() || child.is_list() || child.is_tuple(), where_, ": '", path,
                   "' is a ", child.type_name(), ", expected a dict or a list");
  frames_.push_back(Frame{&child, std::move(path), 0});
}

void ValueInputArchive::finishNode() { frames_.pop_back(); }

void ValueInputArchive::loadSize(cereal::size_type& size) { size = frames_.back().value->size(); }

const Value& ValueInputArchive::loadLeaf(Value::Type type, const char* expected) {
  std::string path;
  const Value& v = next_child(path);
  // NB: an int reads as a float where one is expected (a 3 written by hand as 3).
  bool ok = v.type() == type || (type == Value::Type::Float && v.is_int());
  EMBER_CHECK_TYPE(ok, where_, ": '", path, "' is a ", v.type_name(), ", expected ", expected);
  return v;
}

}  // namespace ember::io
