#!/usr/bin/env python3
"""Generates the declarations and bindings of Ember's ops from the op table (ops/ops.toml).

    python3 ops/codegen.py ops/ops.toml <out>        # the build runs it (cmake/EmberCodegen.cmake)

Writes, under <out> (a file is rewritten only when its text changes, so nothing rebuilds needlessly):
    include/ember/core/tensor_methods.inc  the op methods of Tensor (inside class Tensor)
    include/ember/core/kernels/op_codes.h  the op codes of the elementwise kernel families
    include/ember/ops/functions.h          the free functions ember::<op>
    ops/tensor_methods.cpp                 Tensor::<op>, forwarding to ember::<op>
    python/op_bindings.cpp                 ember.<op> and Tensor.<op> (pybind11)
    python/ember/_ops.py                   the names `ember` re-exports
    python/ember/nn/_functional_ops.py     the names `ember.nn.functional` re-exports
    include/ember/ops/op_db.h              the op database for the C++ tests (ember::op_db)
    python/ember/_op_db.py                 the op database for the Python tests (ember._op_db)
The table's header comment documents its fields and types. Errors name the entry and the field.
"""
from __future__ import annotations

import argparse
import dataclasses
import pathlib
import re
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: the backport (a build requirement there)
    import tomli as tomllib


@dataclasses.dataclass(frozen=True)
class Type:
    """How one table type appears in C++ and in the Python binding."""
    cpp: str                 # C++ parameter type
    cpp_none: str | None     # C++ value of a None default (None: the type has no None)
    py: str                  # the binding lambda's parameter type
    convert: str = "{}"      # C++ expression turning the binding's parameter into `cpp`
    in_core: bool = True     # usable in a Tensor method (core/tensor.h knows the type)


TYPES = {
    "Tensor": Type("const Tensor&", None, "const Tensor&"),
    "Tensor?": Type("const Tensor&", "Tensor()", "const std::optional<Tensor>&", "{}.value_or(Tensor())"),
    "Tensor[]": Type("const std::vector<Tensor>&", None, "const std::vector<Tensor>&"),
    "Scalar": Type("Scalar", None, "Scalar"),
    "Scalar?": Type("std::optional<Scalar>", "std::nullopt", "std::optional<Scalar>"),
    "int": Type("int64_t", None, "int64_t"),
    "int?": Type("std::optional<int64_t>", "std::nullopt", "std::optional<int64_t>"),
    "int[]": Type("IntArrayRef", "{}", "const py::object&", "dims_arg({})"),
    "int[]?": Type("std::optional<IntArrayRef>", "std::nullopt", "const py::object&", "optional_dims_arg({})"),
    "int...": Type("IntArrayRef", None, "const py::object&", "dims_arg({})"),
    "int[2]": Type("Size2", None, "const py::object&", "size2({})", in_core=False),
    "int[2]?": Type("std::optional<Size2>", "std::nullopt", "const py::object&", "optional_size2({})",
                    in_core=False),
    "float": Type("double", None, "double"),
    "float?": Type("std::optional<double>", "std::nullopt", "std::optional<double>"),
    "bool": Type("bool", None, "bool"),
    "bool?": Type("std::optional<bool>", "std::nullopt", "std::optional<bool>"),
    "str": Type("std::string_view", None, "const std::string&"),
    "str?": Type("std::optional<std::string_view>", "std::nullopt", "const std::optional<std::string>&",
                 "optional_view({})"),
    "ScalarType": Type("DType", None, "DType"),
    "ScalarType?": Type("std::optional<DType>", "std::nullopt", "std::optional<DType>"),
    "Device": Type("Device", None, "Device"),
    "Generator?": Type("Generator*", "nullptr", "Generator*", in_core=False),
}
RETURNS = {"Tensor": "Tensor", "Tensor[]": "std::vector<Tensor>", "bool": "bool"}
FIELDS = {"sig", "doc", "variants", "python", "python_names", "python_variants", "functional", "nogil",
          "kernel", "composite", "inplace", "test"}
TEST_FIELDS = {"name", "call", "python_call", "ref", "domain", "avoid", "dtypes", "result", "grad", "cuda"}
TEST_DTYPES = ("all", "numeric", "float", "integral")
TEST_RESULTS = {1: ("same", "float", "bool"), 2: ("promote", "divide", "compare", "logical")}
VARIANTS = {"function", "method"}
# `inplace` -> the detail::InplaceGrad of its method (ops/inplace_of.h); False: no in-place method.
INPLACE_GRAD = {False: "", True: "kRecorded", "zero_grad": "kZero", "untracked": "kUntracked"}
HEADER = "Generated from ops/ops.toml by ops/codegen.py: edit the table, not this file."


class TableError(Exception):
    pass


@dataclasses.dataclass
class Arg:
    type: str
    name: str
    default: str | None
    kw_only: bool

    @property
    def t(self) -> Type:
        return TYPES[self.type]

    def cpp_default(self) -> str | None:
        d = self.default
        if d is None:
            return None
        if d == "None":
            return self.t.cpp_none
        return {"True": "true", "False": "false", "[]": "{}"}.get(d, d)

    def py_default(self) -> str:
        d = self.default
        return {"None": "py::none()", "True": "true", "False": "false", "[]": "py::tuple()"}.get(d, d)


@dataclasses.dataclass
class TestCase:
    """How the op database's tests call and check one use of an op (an entry's `test`)."""
    name: str
    arity: int                         # 1: a function of x; 2: of x and y
    call: str                          # a C++ expression of x (and y)
    python_call: str                   # the same in Python, over ember's names
    ref: str | None                    # the float64 reference: a name the Python tests resolve
    domain: list[tuple[float, float]]  # per input: where its values are drawn
    avoid: list[float]                 # points the gradient checks' inputs keep 0.2 away from
    dtypes: str                        # what the op accepts: all, numeric (no bool), float, integral
    result: str                        # its result dtype (TEST_RESULTS)
    grad: int                          # 0 none, 1 first derivatives, 2 second too
    cuda: bool                         # in the CUDA differential test


@dataclasses.dataclass
class Op:
    name: str
    overload: str
    args: list[Arg]
    returns: list[tuple[str, str | None]]  # (type, name) of each result
    doc: str
    variants: list[str]
    python: str
    python_names: list[str]
    python_variants: list[str]
    functional: bool
    nogil: bool
    kernels: list[tuple[str, str]]  # (enum, enumerator)
    composite: bool = False         # composed of other table ops: no kernel, no backward of its own
    inplace: str = ""               # also the method <name>_ ("" none): how its gradient goes (INPLACE_GRAD)
    tests: list[TestCase] = dataclasses.field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    def cpp_return(self) -> str:
        if len(self.returns) == 1:
            return RETURNS[self.returns[0][0]]
        return "std::tuple<" + ", ".join(RETURNS[t] for t, _ in self.returns) + ">"


def split_top(text: str) -> list[str]:
    """Splits at commas outside brackets and quotes."""
    parts, depth, quoted, current = [], 0, False, ""
    for c in text:
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "([":
            depth += 1
        elif not quoted and c in ")]":
            depth -= 1
        if c == "," and depth == 0 and not quoted:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        parts.append(current.strip())
    return parts


SIG = re.compile(r"^(\w+)(?:\.(\w+))?\((.*)\)\s*->\s*(.+)$")


def parse_op(entry: dict, where: str) -> Op:
    unknown = set(entry) - FIELDS
    if unknown:
        raise TableError(f"{where}: unknown field(s) {sorted(unknown)}; known: {sorted(FIELDS)}")
    if "sig" not in entry:
        raise TableError(f"{where}: missing `sig`")
    m = SIG.match(entry["sig"])
    if not m:
        raise TableError(f"{where}: sig {entry['sig']!r} is not `name[.overload](args) -> Return`")
    name, overload, arg_text, ret_text = m.groups()
    where = f"op {name}{'.' + overload if overload else ''}"
    args, kw_only = [], False
    for part in split_top(arg_text):
        if part == "*":
            kw_only = True
            continue
        am = re.match(r"^(\S+)\s+(\w+)(?:\s*=\s*(.+))?$", part)
        if not am or am.group(1) not in TYPES:
            raise TableError(f"{where}: argument {part!r}: expected `Type name[=default]` with Type one of "
                             f"{', '.join(TYPES)}")
        args.append(Arg(am.group(1), am.group(2), am.group(3), kw_only))
    ret_text = ret_text.strip()
    if ret_text.startswith("("):
        returns = []
        for part in split_top(ret_text[1:-1]):
            bits = part.split()
            returns.append((bits[0], bits[1] if len(bits) > 1 else None))
    else:
        returns = [(ret_text, None)]
    for t, _ in returns:
        if t not in RETURNS:
            raise TableError(f"{where}: return type {t!r}: expected one of {', '.join(RETURNS)}")
    variants = entry.get("variants", ["function", "method"])
    python = entry.get("python", "generated")
    if not set(variants) <= VARIANTS or "function" not in variants:
        raise TableError(f"{where}: variants {variants}: expected [\"function\"] or [\"function\", \"method\"]")
    if python not in ("generated", "custom", "none"):
        raise TableError(f"{where}: python {python!r}: expected \"generated\", \"custom\" or \"none\"")
    python_variants = entry.get("python_variants", variants)
    if not set(python_variants) <= VARIANTS or not python_variants:
        raise TableError(f"{where}: python_variants {python_variants}: expected a subset of {sorted(VARIANTS)}")
    kernels = entry.get("kernel", [])
    kernels = [kernels] if isinstance(kernels, str) else kernels
    parsed_kernels = []
    for k in kernels:
        km = re.match(r"^(\w+Op)::(\w+)$", k)
        if not km:
            raise TableError(f"{where}: kernel {k!r}: expected `FamilyOp::Code`, e.g. \"UnaryOp::Tanh\"")
        parsed_kernels.append((km.group(1), km.group(2)))
    op = Op(name, overload or "", args, returns, " ".join(entry.get("doc", "").split()), variants, python,
            entry.get("python_names", [name]), python_variants, entry.get("functional", False),
            entry.get("nogil", False), parsed_kernels)
    op.composite = entry.get("composite", False)
    inplace = entry.get("inplace", False)
    if inplace not in INPLACE_GRAD:
        raise TableError(f"{where}: inplace {inplace!r}: expected true, \"zero_grad\" or \"untracked\"")
    op.inplace = INPLACE_GRAD[inplace]
    if op.composite and op.kernels:
        raise TableError(f"{where}: a composite op is composed of other ops; it has no `kernel`")
    check_op(op, where)
    tests = entry.get("test", [])
    op.tests = [parse_test(op, t, where) for t in ([tests] if isinstance(tests, dict) else tests)]
    return op


def default_call(op: Op, arity: int) -> str:
    return f"{op.name}({'x, y' if arity == 2 else 'x'})"


def parse_test(op: Op, entry: dict, where: str) -> TestCase:
    unknown = set(entry) - TEST_FIELDS
    if unknown:
        raise TableError(f"{where}: test: unknown field(s) {sorted(unknown)}; known: {sorted(TEST_FIELDS)}")
    arity = sum(1 for a in op.args if a.type == "Tensor")
    if arity not in TEST_RESULTS:
        raise TableError(f"{where}: test: the database holds ops of one or two tensors, not {arity}")
    name = entry.get("name", op.name)
    call = entry.get("call", default_call(op, arity))
    domain = entry.get("domain")
    if domain is None:
        raise TableError(f"{where}: test {name}: missing `domain` ([lo, hi], or one such pair per input)")
    if all(isinstance(v, (int, float)) for v in domain):
        domain = [domain] * arity
    if len(domain) != arity or any(len(d) != 2 or not d[0] < d[1] for d in domain):
        raise TableError(f"{where}: test {name}: domain {entry['domain']}: expected [lo, hi] with lo < hi, "
                         f"or {arity} such pairs")
    dtypes = entry.get("dtypes", "all")
    result = entry.get("result")
    if dtypes not in TEST_DTYPES:
        raise TableError(f"{where}: test {name}: dtypes {dtypes!r}: expected one of {', '.join(TEST_DTYPES)}")
    if result not in TEST_RESULTS[arity]:
        raise TableError(f"{where}: test {name}: result {result!r}: expected one of "
                         f"{', '.join(TEST_RESULTS[arity])}")
    grad = entry.get("grad", 0 if result in ("bool", "compare", "logical") or dtypes == "integral" else 2)
    if grad not in (0, 1, 2):
        raise TableError(f"{where}: test {name}: grad {grad!r}: expected 0, 1 or 2")
    return TestCase(name, arity, call, entry.get("python_call", call), entry.get("ref"),
                    [(float(lo), float(hi)) for lo, hi in domain], [float(a) for a in entry.get("avoid", [])],
                    dtypes, result, grad, entry.get("cuda", True))


def check_op(op: Op, where: str) -> None:
    wants_method = "method" in op.variants or (op.python != "none" and "method" in op.python_variants)
    if wants_method and (not op.args or op.args[0].type != "Tensor" or op.args[0].name != "self"):
        raise TableError(f"{where}: a method needs `Tensor self` as its first argument")
    if "method" in op.variants:
        for a in op.args[1:]:
            if not a.t.in_core:
                raise TableError(f"{where}: argument {a.name} ({a.type}) cannot appear in a Tensor method: "
                                 "core/tensor.h does not know its type; make the op a function only")
    if op.inplace:
        if not op.args or op.args[0].type != "Tensor" or op.args[0].name != "self" or op.returns != [("Tensor", None)]:
            raise TableError(f"{where}: an in-place op takes `Tensor self` first and returns one Tensor")
        for a in op.args[1:]:
            if not a.t.in_core:
                raise TableError(f"{where}: argument {a.name} ({a.type}) cannot appear in an in-place method")
    if op.name.endswith("_") and (op.returns != [("Tensor", None)] or not op.args or op.args[0].name != "self"):
        raise TableError(f"{where}: an op named with a trailing _ writes into `Tensor self` (first) and returns it")
    for a in op.args:
        if a.default == "None" and a.t.cpp_none is None:
            raise TableError(f"{where}: argument {a.name}: {a.type} cannot default to None")
        if a.type == "int..." and (a is not op.args[-1] or len(op.args) != 2):
            raise TableError(f"{where}: int... must be the only argument after self")


def load(table: pathlib.Path) -> list[Op]:
    data = tomllib.loads(table.read_text())
    if set(data) != {"op"}:
        raise TableError(f"{table}: expected only [[op]] entries, got {sorted(data)}")
    ops = [parse_op(e, f"{table} entry {i + 1}") for i, e in enumerate(data["op"])]
    seen, codes = {}, {}
    for op in ops:
        if op.full_name in seen:
            raise TableError(f"op {op.full_name}: listed twice")
        seen[op.full_name] = op
        for code in op.kernels:
            if code in codes:
                raise TableError(f"op {op.full_name}: kernel {code[0]}::{code[1]} is already op "
                                 f"{codes[code].full_name}'s")
            codes[code] = op
    names = {}
    for op in ops:
        for t in op.tests:
            if t.name in names:
                raise TableError(f"op {op.full_name}: test name {t.name!r} is already op {names[t.name]}'s")
            names[t.name] = op.full_name
    return ops


# ---- C++


def comment(doc: str, indent: str = "") -> str:
    if not doc:
        return ""
    lines, line = [], ""
    for word in doc.split():
        if len(indent) + 4 + len(line) + len(word) + 1 > 100 and line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "".join(f"{indent}/// {l}\n" for l in lines)


def cpp_params(args: list[Arg], with_defaults: bool) -> str:
    # C++ defaults only after the last argument without one.
    last_required = max((i for i, a in enumerate(args) if a.cpp_default() is None), default=-1)
    out = []
    for i, a in enumerate(args):
        p = f"{a.t.cpp} {a.name}"
        if with_defaults and i > last_required:
            p += f" = {a.cpp_default()}"
        out.append(p)
    return ", ".join(out)


def functions_h(ops: list[Op]) -> str:
    decls = "".join(f"{comment(op.doc)}{op.cpp_return()} {op.name}({cpp_params(op.args, True)});\n"
                    for op in ops)
    impls = "".join(f"{op.cpp_return()} impl_{op.name}({cpp_params(op.args, True)});\n" for op in ops)
    return f"""#pragma once
// {HEADER}
// The free functions of every op in the table. ember::<op> (ops/traced_ops.cpp, generated) records
// the call where a tracer is installed (core/tracing.h) and runs impl_<op>, which is defined next to
// its backward in ops/<family>.cpp. NB: a name of its own, not a namespace: an op's body calls
// other ops unqualified, and argument-dependent lookup would find ember::<op> beside it.
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/size2.h"
#include "ember/core/tensor.h"

namespace ember {{

{decls}
// ---- the ops' bodies, which the functions above run

{impls}
}}  // namespace ember
"""


def traced_call(op: Op) -> str:
    """The recorded arguments of one call of op, as an initializer list of tracing::Arg."""
    return "{" + ", ".join(f"tracing::arg({a.name})" for a in op.args) + "}"


def traced_ops_cpp(ops: list[Op]) -> str:
    defs = []
    for op in ops:
        names = ", ".join(a.name for a in op.args)
        ret = op.cpp_return()
        defs.append(f"{ret} {op.name}({cpp_params(op.args, False)}) {{\n"
                    f"  if (tracing::recording()) [[unlikely]]\n"
                    f"    return tracing::record<{ret}>(\"{op.full_name}\", [&] {{ return impl_{op.name}({names}); }},\n"
                    f"                                  {traced_call(op)});\n"
                    f"  return impl_{op.name}({names});\n}}\n")
    body = "\n".join(defs)
    return f"""// {HEADER}
// ember::<op> for every op of the table: impl_<op>, recorded by the tracer installed on this
// thread if any (core/tracing.h).
#include "ember/core/tracing.h"
#include "ember/ops/functions.h"

namespace ember {{

{body}
}}  // namespace ember
"""


# How jit/table_ops.cpp reads an argument of each table type back from a program (jit/arg_decode.h).
DECODE = {"Tensor": "tensor", "Tensor?": "tensor", "Tensor[]": "tensors", "Scalar": "scalar",
          "Scalar?": "opt_scalar", "int": "integer", "int?": "opt_integer", "int[]": "ints",
          "int[]?": "opt_ints", "int...": "ints", "int[2]": "size2", "int[2]?": "opt_size2", "float": "real",
          "float?": "opt_real", "bool": "boolean", "bool?": "opt_boolean", "str": "str", "str?": "opt_str",
          "ScalarType": "dtype", "ScalarType?": "opt_dtype", "Device": "device", "Generator?": "generator"}


def table_ops_cpp(ops: list[Op]) -> str:
    entries = []
    for op in ops:
        decoded = [f"{DECODE[a.type]}(a[{i}])" for i, a in enumerate(op.args)]
        schema_args = ", ".join(f'{{"{a.name}", "{a.type}"}}' for a in op.args)
        returns = ", ".join(f'"{t}"' for t, _ in op.returns)
        run = f"[](const Args& a) {{ return tracing::outputs_of(ember::{op.name}({', '.join(decoded)})); }}"
        inplace = "nullptr"
        if op.inplace:
            inplace = f"[](const Args& a) {{ tensor(a[0]).{op.name}_({', '.join(decoded[1:])}); }}"
        entries.append(f'  add({{"{op.full_name}", {{{schema_args}}}, {{{returns}}},\n'
                       f'       {run},\n       {inplace}}});\n')
    return f"""// {HEADER}
// The op table as jit replays it: each op's schema and a call of ember::<op> (and of its in-place
// method) on arguments read back from a program.
#include "ember/jit/arg_decode.h"
#include "ember/jit/op_registry.h"
#include "ember/ops/ops.h"

namespace ember::jit::detail {{

void register_table_ops(const std::function<void(OpSchema)>& add) {{
{''.join(entries)}}}

}}  // namespace ember::jit::detail
"""


def method_ops(ops: list[Op]) -> list[Op]:
    return [op for op in ops if "method" in op.variants]


def inplace_ops(ops: list[Op]) -> list[Op]:
    return [op for op in ops if op.inplace]


def tensor_methods_inc(ops: list[Op]) -> str:
    decls = "".join(f"{comment(op.doc, '  ')}  {op.cpp_return()} {op.name}({cpp_params(op.args[1:], True)}) const;\n"
                    for op in method_ops(ops))
    decls += "".join(f"  /// In place: self.copy_({op.name}(self, ...)) (ops/inplace_of.h).\n"
                     f"  const Tensor& {op.name}_({cpp_params(op.args[1:], True)}) const;\n" for op in inplace_ops(ops))
    return f"""// {HEADER}
// The op methods of Tensor, included inside the class (core/tensor.h): t.f(args) is ember::f(t, args),
// defined in ops/ (generated: ops/tensor_methods.cpp).
{decls}"""


def tensor_methods_cpp(ops: list[Op]) -> str:
    defs = []
    for op in method_ops(ops):
        call = ", ".join(["*this"] + [a.name for a in op.args[1:]])
        defs.append(f"{op.cpp_return()} Tensor::{op.name}({cpp_params(op.args[1:], False)}) const {{\n"
                    f"  return ember::{op.name}({call});\n}}\n")
    for op in inplace_ops(ops):
        call = ", ".join(["t"] + [a.name for a in op.args[1:]])
        read = ", ".join(a.name for a in op.args[1:] if a.type in ("Tensor", "Tensor?"))
        recorded = traced_call(op).replace("tracing::arg(self)", "tracing::arg(*this)")
        defs.append(f"const Tensor& Tensor::{op.name}_({cpp_params(op.args[1:], False)}) const {{\n"
                    f"  auto run = [&]() -> const Tensor& {{\n"
                    f"    return detail::inplace_of(*this, \"{op.name}_\", {{{read}}},\n"
                    f"                              [&](const Tensor& t) {{ return ember::{op.name}({call}); }},\n"
                    f"                              detail::InplaceGrad::{op.inplace});\n  }};\n"
                    f"  if (tracing::recording()) [[unlikely]] {{\n"
                    f"    tracing::record<Tensor>(\"{op.full_name}\", run, {recorded}, true);\n"
                    f"    return *this;\n  }}\n"
                    f"  return run();\n}}\n")
    body = "\n".join(defs)
    return f"""// {HEADER}
#include "ember/core/tracing.h"
#include "ember/ops/inplace_of.h"
#include "ember/ops/ops.h"

namespace ember {{

{body}
}}  // namespace ember
"""


def op_codes_h(ops: list[Op]) -> str:
    families: dict[str, list[tuple[str, str]]] = {}
    for op in ops:
        for family, code in op.kernels:
            families.setdefault(family, []).append((code, op.name))
    enums, names, counts = [], [], []
    for family, codes in families.items():
        enums.append(f"enum class {family} : uint8_t {{ {', '.join(c for c, _ in codes)} }};\n")
        counts.append(f"template <>\ninline constexpr int kOpCount<{family}> = {len(codes)};\n")
        cases = "".join(f"    case {family}::{c}: return \"{n}\";\n" for c, n in codes)
        names.append(f"constexpr const char* op_name({family} op) {{\n  switch (op) {{\n{cases}  }}\n"
                     f"  return \"{family}\";\n}}\n")
    return f"""#pragma once
// {HEADER}
// The op codes of the kernel families, one per `kernel` of the table (kernel contracts:
// core/kernels/<family>.h), how many each family has, and the op's name each stands for in error
// messages.
#include <cstdint>

namespace ember {{

{''.join(enums)}
/// The number of op codes of a family: its codes are 0 to kOpCount - 1.
template <typename Family>
inline constexpr int kOpCount = 0;
{''.join(counts)}
namespace detail {{
{''.join(names)}}}  // namespace detail

}}  // namespace ember
"""


# ---- Python


def py_name_of_first(op: Op, arg: Arg, is_function: bool) -> str:
    return "input" if is_function and arg.name == "self" and arg.type == "Tensor" else arg.name


def python_doc(op: Op, is_function: bool) -> str:
    """The docstring: the table's doc, whose `self` is `input` in the function form."""
    if is_function and op.args and op.args[0].name == "self" and op.args[0].type == "Tensor":
        return re.sub(r"\bself\b", "input", op.doc)
    return op.doc


def binding(op: Op, py_name: str, is_function: bool, inplace: bool = False) -> str:
    """The pybind11 definition of one Python name of op: a function, a method or (inplace) the
    method <name>_, which returns self's own Python object, as PyTorch's in-place methods do."""
    args = op.args
    writes_self = not is_function and not inplace and op.name.endswith("_")  # t.normal_(): returns t itself
    params, py_args, setup, call = [], [], [], []
    for i, a in enumerate(args):
        name = py_name_of_first(op, a, is_function) if i == 0 else a.name
        var = f"{name}_"
        if not is_function and i == 0:
            params.append("const py::object& self" if inplace or writes_self else "const Tensor& self")
            call.append("self.cast<const Tensor&>()" if writes_self else "self")
            continue
        if a.type == "int..." and not is_function:
            params.append(f"const py::args& {name}")
            setup.append(f"auto {var} = size_args({name});")
            call.append(var)
            continue
        params.append(f"{a.t.py} {name}")
        if a.t.convert == "{}":
            call.append(name)
        else:
            setup.append(f"auto {var} = {a.t.convert.format(name)};")
            call.append(var)
        if a.kw_only and not any(x.kw_only for x in args[:i]):
            py_args.append("py::kw_only()")
        arg = f'py::arg("{name}")'
        if a.default is not None:
            arg += f" = {a.py_default()}"
        py_args.append(arg)
    invoke = f"ember::{op.name}({', '.join(call)})"
    if inplace:
        body = "".join(f"    {s}\n" for s in setup)
        body += f"    self.cast<const Tensor&>().{op.name}_({', '.join(call[1:])});\n    return self;\n"
        extras = py_args + [f'R"doc(In place: {python_doc(op, False)})doc"'] if op.doc else py_args
        extra = "".join(f",\n      {e}" for e in extras)
        return f'  cls.def("{py_name}", []({", ".join(params)}) {{\n{body}  }}{extra});\n'
    if op.nogil:
        invoke = f"without_gil([&] {{ return {invoke}; }})"
    kinds = [t for t, _ in op.returns]
    if len(op.returns) > 1 and all(n for _, n in op.returns):
        fields = ", ".join(f'"{n}"' for _, n in op.returns)
        invoke = f"named_tuple(\"{op.name}\", {{{fields}}}, {invoke})"
    elif kinds == ["Tensor[]"]:
        invoke = f"tensor_tuple({invoke})"
    body = "".join(f"    {s}\n" for s in setup)
    body += f"    {invoke};\n    return self;\n" if writes_self else f"    return {invoke};\n"
    extras = py_args + ([f'R"doc({python_doc(op, is_function)})doc"'] if op.doc else [])
    target = "m" if is_function else "cls"
    module, _, py_name = py_name.rpartition(".")
    if module:  # "linalg.svd": ember._C.linalg.svd
        target = f'submodule(m, "{module}")'
    extra = "".join(f",\n      {e}" for e in extras)
    return f'  {target}.def("{py_name}", []({", ".join(params)}) {{\n{body}  }}{extra});\n'


def op_bindings_cpp(ops: list[Op]) -> str:
    defs = []
    for op in ops:
        if op.python != "generated":
            continue
        for py_name in op.python_names:
            if "function" in op.python_variants:
                defs.append(binding(op, py_name, True))
            if "method" in op.python_variants:
                defs.append(binding(op, py_name, False))
            if op.inplace and not py_name.startswith("_"):
                defs.append(binding(op, py_name + "_", False, inplace=True))
    # Every named result type is made at import, so a pickled one loads before any op ran.
    named = {op.name: [n for _, n in op.returns] for op in ops
             if op.python == "generated" and len(op.returns) > 1 and all(n for _, n in op.returns)}
    types = ""
    for name, fields in named.items():
        quoted = ", ".join(f'"{f}"' for f in fields)
        types += f'  named_tuple_class("{name}", {{{quoted}}});\n'
    return f"""// {HEADER}
// ember.<op>(input, ...) and Tensor.<op>(...) for each op of the table bound by the generator, in
// table order (the order in which pybind11 tries overloads).
#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/ops/ops.h"

namespace ember::python {{
namespace {{

// The submodule a dotted Python name ("linalg.svd") puts an op in, made on first use.
py::module_ submodule(py::module_& m, const char* name) {{
  if (py::hasattr(m, name)) return m.attr(name).cast<py::module_>();
  return m.def_submodule(name);
}}

}}  // namespace

void bind_table_ops(py::module_& m) {{
{types}  auto cls = tensor_class(m);
{''.join(defs)}}}

}}  // namespace ember::python
"""


def python_exports(names: list[str], source: str, what: str) -> str:
    unique = sorted(set(names))
    imports = "".join(f"    {n},\n" for n in unique)
    listed = "".join(f"    \"{n}\",\n" for n in unique)
    return f'''"""{HEADER}

{what}"""
from {source} import (  # noqa: F401  (re-exported)
{imports})

__all__ = [
{listed}]
'''


def exported(ops: list[Op], functional_only: bool) -> list[str]:
    """The names `ember` (or `ember.nn.functional`) re-exports: a name with a leading underscore is
    bound on ember._C only, for the Python layer to call (as torch._C._nn.hardtanh is); a dotted one
    ("linalg.svd") in a submodule of ember._C, which its package re-exports (ember/linalg.py)."""
    return [n for op in ops if op.python != "none" and "function" in op.python_variants
            and (op.functional or not functional_only) for n in op.python_names
            if not n.startswith("_") and "." not in n]


# ---- the op database


def cpp_double(v: float) -> str:
    if v != v:
        return "NAN"
    if abs(v) == float("inf"):
        return "-INFINITY" if v < 0 else "INFINITY"
    return repr(v)


def op_db_h(ops: list[Op]) -> str:
    rows = {1: [], 2: []}
    for op in ops:
        for t in op.tests:
            params = "const Tensor& x" + (", const Tensor& y" if t.arity == 2 else "")
            domains = ", ".join(f"{{{cpp_double(lo)}, {cpp_double(hi)}}}" for lo, hi in t.domain)
            avoid = ", ".join(cpp_double(a) for a in t.avoid)
            rows[t.arity].append(
                f"      {{\"{t.name}\", {{{domains}}}, {{{avoid}}}, Dtypes::{t.dtypes.capitalize()}, "
                f"Result::{t.result.capitalize()}, {t.grad}, {str(t.cuda).lower()},\n"
                f"       []({params}) {{ return {t.call}; }}}},\n")
    return f"""#pragma once
// {HEADER}
// The op database: each use of an op that the table's `test` fields describe, with the domain its
// inputs are drawn from, the dtypes it takes and gives, and how far its gradients are checked, so a
// test loops over every op instead of listing them (tests/ops/op_db_test.cpp, tests/cuda/).
#include <string_view>
#include <vector>

#include "ember/ops/functions.h"

namespace ember::op_db {{

// Numeric: the integer and floating dtypes (not bool); Integral: the integer dtypes and bool
enum class Dtypes {{ All, Numeric, Float, Integral }};
enum class Result {{ Same, Float, Bool, Promote, Divide, Compare, Logical }};
struct Domain {{
  double lo, hi;
}};

template <int N, class Fn>
struct Case {{
  std::string_view name;
  Domain domain[N];           // per input
  std::vector<double> avoid;  // the gradient checks keep inputs 0.2 away from these (kinks, poles)
  Dtypes dtypes;
  Result result;
  int grad;   // 0: not differentiable here, 1: first derivatives checked, 2: second too
  bool cuda;  // in the CUDA differential test
  Fn fn;
}};
using UnaryCase = Case<1, Tensor (*)(const Tensor&)>;
using BinaryCase = Case<2, Tensor (*)(const Tensor&, const Tensor&)>;

inline const std::vector<UnaryCase>& unary_cases() {{
  static const std::vector<UnaryCase> cases = {{
{"".join(rows[1])}  }};
  return cases;
}}

inline const std::vector<BinaryCase>& binary_cases() {{
  static const std::vector<BinaryCase> cases = {{
{"".join(rows[2])}  }};
  return cases;
}}

}}  // namespace ember::op_db
"""


def takes_scalar_other(op: Op, ops: list[Op]) -> bool:
    """Whether Python's op(tensor, number) exists: the table has an overload of the op taking
    (Tensor self, Scalar other) with a Python binding (add.Scalar, pow.Tensor_Scalar, ...)."""
    return any(o.name == op.name and o is not op and o.python != "none" and len(o.args) >= 2
               and o.args[0].type == "Tensor" and o.args[1].type == "Scalar" for o in ops)


def op_db_py(ops: list[Op]) -> str:
    rows = []
    for op in ops:
        scalar_other = takes_scalar_other(op, ops)
        for t in op.tests:
            rows.append(f"    OpCase({t.name!r}, {op.full_name!r}, {tuple(op.python_names)!r}, {t.arity}, "
                        f"{t.python_call!r}, {t.ref!r},\n"
                        f"           {tuple(t.domain)!r}, {tuple(t.avoid)!r}, {t.dtypes!r}, {t.result!r}, "
                        f"{t.grad}, {t.cuda}, {t.arity == 2 and t.call == default_call(op, 2) and scalar_other}),\n")
    return f'''"""{HEADER}

The op database: each use of an op that the table's `test` fields describe, for the Python tests to
loop over (tests/python/property/op_db.py resolves `call` and `ref`)."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class OpCase:
    name: str            # unique in the database
    op: str              # the table entry, name[.overload]
    python_names: tuple  # the op's Python names (the first is its own, the others aliases)
    arity: int           # 1: a function of x, 2: of x and y
    call: str            # a Python expression of x (and y) over ember's names
    ref: str             # the float64 reference's name, or None
    domain: tuple        # per input, (lo, hi): where its values are drawn
    avoid: tuple         # points the gradient checks keep 0.2 away from
    dtypes: str          # "all", "numeric" (no bool), "float" or "integral" (ints and bool)
    result: str          # unary: "same", "float", "bool"; binary: "promote", "divide", "compare", "logical"
    grad: int            # 0 none, 1 first derivatives, 2 second too
    cuda: bool           # in the CUDA differential test
    scalar_other: bool   # op(tensor, Python number) exists (the table has an overload for it)


CASES = (
{"".join(rows)})
'''


# ---- output


def outputs(ops: list[Op]) -> dict[str, str]:
    return {
        "include/ember/core/tensor_methods.inc": tensor_methods_inc(ops),
        "include/ember/core/kernels/op_codes.h": op_codes_h(ops),
        "include/ember/ops/functions.h": functions_h(ops),
        "ops/tensor_methods.cpp": tensor_methods_cpp(ops),
        "ops/traced_ops.cpp": traced_ops_cpp(ops),
        "jit/table_ops.cpp": table_ops_cpp(ops),
        "python/op_bindings.cpp": op_bindings_cpp(ops),
        "python/ember/_ops.py": python_exports(exported(ops, False), "._C", "The ops `ember` re-exports."),
        "python/ember/nn/_functional_ops.py": python_exports(
            exported(ops, True), ".._C", "The ops `ember.nn.functional` re-exports."),
        "include/ember/ops/op_db.h": op_db_h(ops),
        "python/ember/_op_db.py": op_db_py(ops),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    args = parser.parse_args()
    try:
        ops = load(args.table)
    except TableError as e:
        print(f"codegen: {e}", file=sys.stderr)
        return 1
    for rel, text in outputs(ops).items():
        path = args.out / rel
        if path.exists() and path.read_text() == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
