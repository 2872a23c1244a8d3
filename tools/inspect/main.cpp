// ember-inspect: prints what an Ember checkpoint (or any safetensors file) holds, without the
// program that wrote it.
//
//   ember-inspect ckpt.ember                      # kind, value tree, table of stored tensors
//   ember-inspect ckpt.ember --tensor fc.weight   # that tensor's values (by key or alias)
//
// Every tensor's checksum is verified while printing the table. Exit status: 0 when the file
// reads and every checksum matches; 1 for a file that cannot be read, an unknown tensor name or
// a checksum mismatch (the table still shows which); CLI11's codes for a bad command line.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "ember/io/io.h"
#include "ember/io/schema.h"

namespace ember::inspect {
namespace {

// ---- formatting of scalars, as Python would write them

std::string quote(const std::string& s) {
  std::string out = "'";
  for (unsigned char c : s) {
    switch (c) {
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 bytes pass through
        }
    }
  }
  return out + "'";
}

// The shortest text that reads back as the same double; whole numbers keep a ".0".
std::string float_text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string attr_text(const AttrValue& a) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "True" : "False";
        else if constexpr (std::is_same_v<T, int64_t>) return std::to_string(x);
        else if constexpr (std::is_same_v<T, double>) return float_text(x);
        else return quote(x);
      },
      a);
}

std::string shape_text(const DimVector& shape) {
  std::ostringstream os;
  os << shape;
  return os.str();
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// ---- the value tree

// Finds the stored tensor behind a leaf of the tree. NB: io::save names each tensor leaf by its
// path ("model/fc.weight", "note/1", "tensor" for a root tensor), adding "#2", "#3", ... to a path
// already taken or equal to "__metadata__", and records every such name in the file. Walking the
// tree in the same order and naming the same way gives each leaf the exact name it was saved
// under, so a leaf that is an alias of a tie is shown with the key it is stored as.
class LeafNames {
 public:
  explicit LeafNames(const io::File& file) : file_(file) {}

  struct Leaf {
    std::string name;                      // the name the leaf was saved under
    const io::TensorInfo* info = nullptr;  // null when the file does not know that name
  };

  /// The name and stored tensor of the tensor leaf at `path`.
  Leaf resolve(const std::string& path, const Tensor& t) {
    std::string base = path.empty() ? "tensor" : path;
    Leaf leaf{base};
    for (int n = 2; leaf.name == "__metadata__" || taken_.count(leaf.name); ++n)
      leaf.name = base + "#" + std::to_string(n);
    taken_.insert(leaf.name);
    try {
      const io::TensorInfo& info = file_.info(leaf.name);
      if (info.dtype == t.dtype() && info.shape == t.sizes()) leaf.info = &info;
    } catch (const Error&) {
      // Not a name in the file (another writer's naming): the leaf is shown without its key.
    }
    return leaf;
  }

 private:
  const io::File& file_;
  std::unordered_set<std::string> taken_;
};

void print_tree(std::ostream& os, const io::Value& v, const std::string& label, const std::string& path,
                int depth, LeafNames& names) {
  std::string indent(2 * static_cast<size_t>(depth) + 2, ' ');
  os << indent << label << ": ";
  auto child_path = [&](const std::string& part) { return path.empty() ? part : path + "/" + part; };
  switch (v.type()) {
    case io::Value::Type::None: os << "None\n"; return;
    case io::Value::Type::Bool: os << "bool " << (v.as_bool() ? "True" : "False") << '\n'; return;
    case io::Value::Type::Int: os << "int " << v.as_int() << '\n'; return;
    case io::Value::Type::Float: os << "float " << float_text(v.as_float()) << '\n'; return;
    case io::Value::Type::String: os << "str " << quote(v.as_string()) << '\n'; return;
    case io::Value::Type::Tensor: {
      const Tensor& t = v.as_tensor();
      os << "Tensor " << t.dtype() << ' ' << t.sizes() << " (" << io::tensor_kind_name(v.tensor_kind());
      if (v.tensor_kind() == io::TensorKind::Buffer && !v.persistent()) os << ", non-persistent";
      if (t.requires_grad()) os << ", requires_grad";
      os << ')';
      LeafNames::Leaf leaf = names.resolve(path, t);
      if (leaf.info && leaf.info->key != leaf.name)
        os << "  tied: stored as " << quote(leaf.info->key);  // an alias of a tensor seen earlier
      else if (leaf.info && leaf.info->key != path)
        os << "  stored as " << quote(leaf.info->key);  // its path was taken by another tensor
      os << '\n';
      return;
    }
    case io::Value::Type::List:
    case io::Value::Type::Tuple:
      os << v.type_name() << " (" << v.size() << (v.size() == 1 ? " item)\n" : " items)\n");
      for (size_t i = 0; i < v.size(); ++i)
        print_tree(os, v[i], "[" + std::to_string(i) + "]", child_path(std::to_string(i)), depth + 1, names);
      return;
    case io::Value::Type::Dict:
      os << "dict (" << v.size() << (v.size() == 1 ? " key)\n" : " keys)\n");
      for (size_t i = 0; i < v.size(); ++i)
        print_tree(os, v.items()[i], v.keys()[i].is_int() ? v.keys()[i].str() : quote(v.keys()[i].as_string()),
                   child_path(v.keys()[i].str()), depth + 1, names);
      return;
  }
}

// ---- the table of stored tensors

std::string checksum_status(const io::File& file, const io::TensorInfo& info) {
  if (!info.checksum) return "none";
  return file.verify(info.key) ? "ok" : "MISMATCH";
}

// Prints the table; returns the keys whose checksum does not match.
std::vector<std::string> print_table(std::ostream& os, const io::File& file) {
  const std::vector<std::string> head = {"key", "other names", "dtype", "shape", "bytes",
                                         "requires_grad", "attributes", "checksum"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> damaged;
  uint64_t total = 0;
  for (const io::TensorInfo& info : file.tensors()) {
    std::vector<std::string> aliases;
    for (size_t i = 1; i < info.names.size(); ++i) aliases.push_back(quote(info.names[i]));
    std::vector<std::string> attrs;
    for (const auto& [name, value] : info.attributes) attrs.push_back(name + "=" + attr_text(value));
    std::string status = checksum_status(file, info);
    if (status == "MISMATCH") damaged.push_back(info.key);
    total += info.nbytes;
    rows.push_back({quote(info.key), aliases.empty() ? "-" : join(aliases, ", "), std::string(dtype_name(info.dtype)),
                    shape_text(info.shape), std::to_string(info.nbytes), info.requires_grad ? "True" : "False",
                    attrs.empty() ? "-" : join(attrs, ", "), status});
  }
  os << "tensors: " << rows.size() << " stored, " << total << " bytes of data\n";
  if (rows.empty()) return damaged;
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line = "  ";
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    os << line << '\n';
  };
  print_row(head);
  for (const auto& row : rows) print_row(row);
  return damaged;
}

// ---- the commands

int print_summary(const io::File& file) {
  std::ostream& os = std::cout;
  os << "file: " << file.path() << '\n';
  switch (file.kind()) {
    case io::File::Kind::Ember:
      os << "kind: Ember checkpoint, schema v" << file.version() << " (a safetensors file)\n";
      break;
    case io::File::Kind::Safetensors: os << "kind: plain safetensors (no Ember schema)\n"; break;
    case io::File::Kind::PyTorch:
      os << "kind: PyTorch checkpoint (torch.save zip, read without running its pickle)\n";
      break;
  }
  std::vector<std::string> extra;
  for (const auto& [key, value] : file.metadata()) {
    if (file.is_ember() && (key == io::detail::kDocumentKey || key == io::detail::kFormatKey)) continue;
    extra.push_back(key);
  }
  if (!extra.empty()) {
    os << "metadata:\n";
    for (const std::string& key : extra) {
      std::string value = file.metadata().at(key);
      if (value.size() > 200) value = value.substr(0, 200) + "... (" + std::to_string(value.size()) + " chars)";
      os << "  " << quote(key) << ": " << quote(value) << '\n';
    }
  }
  // The tree is built without hashing; the table below verifies each tensor on its own, so a
  // damaged tensor is reported by name instead of stopping the listing.
  io::Value root = file.root(/*verify=*/false);
  os << "value tree:\n";
  LeafNames names(file);
  print_tree(os, root, "root", "", 0, names);
  std::vector<std::string> damaged = print_table(os, file);
  if (!damaged.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& key : damaged) quoted.push_back(quote(key));
    std::cerr << "ember-inspect: '" << file.path() << "' is damaged: " << damaged.size()
              << (damaged.size() == 1 ? " tensor fails" : " tensors fail") << " its checksum: " << join(quoted, ", ")
              << '\n';
    return 1;
  }
  return 0;
}

int print_tensors(const io::File& file, const std::vector<std::string>& wanted) {
  for (const std::string& name : wanted) {
    const io::TensorInfo& info = file.info(name);  // a KeyError naming `name` when unknown
    std::cout << quote(name);
    if (info.key != name) std::cout << " (stored as " << quote(info.key) << ')';
    std::vector<std::string> others;
    for (const std::string& n : info.names)
      if (n != name && n != info.key) others.push_back(quote(n));
    if (!others.empty()) std::cout << " (also " << join(others, ", ") << ')';
    std::cout << ": " << info.dtype << ' ' << info.shape << ", " << info.nbytes << " bytes, checksum "
              << checksum_status(file, info) << '\n';
    Tensor t = file.tensor(name);  // verifies the checksum: damaged bytes are never printed
    std::cout << t << '\n';
  }
  return 0;
}

}  // namespace
}  // namespace ember::inspect

int main(int argc, char** argv) {
  CLI::App app{"Prints what an Ember checkpoint or a safetensors file holds: its kind, the value tree and a\n"
               "table of the stored tensors with every name, dtype, shape, attributes and checksum status.",
               "ember-inspect"};
  std::string path;
  std::vector<std::string> tensors;
  app.add_option("FILE", path, "the checkpoint or safetensors file")->required();
  app.add_option("-t,--tensor", tensors, "print the values of this tensor (its key or any other name); repeatable");
  app.footer(
      "Examples:\n"
      "  ember-inspect ckpt.ember                       # kind, value tree, table of stored tensors\n"
      "  ember-inspect ckpt.ember -t model/fc.weight    # that tensor's values\n"
      "Exit status: 0 when the file reads and every checksum matches; 1 for an unreadable file,\n"
      "an unknown tensor name or a checksum mismatch.");
  CLI11_PARSE(app, argc, argv);

  try {
    ember::io::File file = ember::io::File::open(path);
    return tensors.empty() ? ember::inspect::print_summary(file) : ember::inspect::print_tensors(file, tensors);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "ember-inspect: error: " << e.what() << '\n';
    return 1;
  }
}
