#pragma once
// A module's architecture as an io::Value: type names and constructor settings, never a C++ class
// identity (STYLE.md, io), so a saved Sequential of built-in layers rebuilds without being
// re-declared in code, and a file never ties itself to how the program that wrote it was compiled.
//
// Every node is a dict:
//
//   {"type": "Linear",                              the name the module gave Module's constructor
//    "options": {"in_features": 4, "out_features": 2, "bias": true},
//    "children": {"0": {...}, "1": {...}}}          containers only (and unregistered types)
//
// - "options" mirrors the layer's Options struct field by field: ints, floats, bools and strings
//   as themselves, a Size2 as the list [h, w], a std::optional that is empty as None, a shape as a
//   list of ints. A built-in layer reading its options fills a missing optional field with its
//   default (so files keep loading when an option is added) and refuses a field it does not know.
// - "children" is present for Sequential, ModuleList and ModuleDict, which are rebuilt from their
//   children recursively, names kept, and for the layers made of children they do not build
//   themselves (TransformerEncoder and TransformerDecoder: "layers" and "norm"; Transformer:
//   "encoder" and "decoder", beside its options). Every other layer builds its own children from
//   its options (TransformerEncoderLayer builds its attention and feed-forward), so they are not
//   recorded.
// - A module whose type is not registered is still recorded: {"type": name, "options": None,
//   "children": {...}}; rebuilding it is an error naming the type and how to register it.
//
// Built-in types: Linear, Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, BatchNorm1d/2d/3d,
// LayerNorm, Embedding, Dropout, Flatten, ReLU, GELU, Tanh, Sigmoid, LeakyReLU,
// Softmax, Identity, Sequential, ModuleList, ModuleDict, MultiheadAttention,
// TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder,
// Transformer. A user module registers its type once:
//
//   io::register_module_type("Block",
//       [](const nn::Module& m) { auto& b = dynamic_cast<const Block&>(m);
//                                 return io::Value::dict({{"width", b.width()}}); },
//       [](const io::Value& o) { return std::make_shared<Block>(o.at("width").as_int()); });
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/io/value.h"
#include "ember/nn/module.h"

namespace ember::io {

/// The settings of a module of the registered type, as a dict of plain values.
using ToOptions = std::function<Value(const nn::Module&)>;
/// A new module of the registered type built from what ToOptions returned.
using FromOptions = std::function<std::shared_ptr<nn::Module>(const Value& options)>;

/// Registers a module type by the name its modules pass to Module's constructor; a KeyError if the
/// name is taken (built-in names included). The factory must build the module's children itself.
void register_module_type(const std::string& type_name, ToOptions to_options, FromOptions from_options);
/// True when `type_name` is built in or registered.
bool has_module_type(const std::string& type_name);
/// Every known type name, sorted.
std::vector<std::string> module_types();

/// The architecture tree of `module` (see the top of this file); unregistered types are recorded
/// by name only, with their children.
Value architecture(const nn::Module& module);
/// A new module built from an architecture tree, with fresh parameters; a KeyError naming the
/// type (and how to register it) for an unknown type, a ValueError or TypeError naming the
/// module's path and the option for a malformed node.
std::shared_ptr<nn::Module> from_architecture(const Value& architecture);

}  // namespace ember::io
