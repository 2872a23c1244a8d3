"""The op table (ops/ops.toml) and its generator (ops/codegen.py): every op the table binds is
reachable from Python under each of its names, with the table's docstring, and in the committed
type stubs; a malformed table is an error that names the entry and the field."""
import ast
import importlib.util
import pathlib
import sys
import textwrap

import pytest

import ember

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("codegen", ROOT / "ops" / "codegen.py")
codegen = importlib.util.module_from_spec(spec)
sys.modules["codegen"] = codegen  # NB: dataclasses look their module up
spec.loader.exec_module(codegen)

OPS = codegen.load(ROOT / "ops" / "ops.toml")
BOUND = [op for op in OPS if op.python != "none"]


def bindings():
    """(op, python name, is_function) for every Python binding the table asks for."""
    for op in BOUND:
        for name in op.python_names:
            for variant in op.python_variants:
                yield op, name, variant == "function"


@pytest.mark.parametrize("op,name,is_function", list(bindings()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_table_op_is_reachable_under_each_name(op, name, is_function):
    module, _, name = name.rpartition(".")
    if module:  # "linalg.svd": ember._C.linalg.svd, which ember.linalg re-exports
        assert getattr(getattr(ember, module), name) is getattr(getattr(ember._C, module), name)
        where = getattr(ember, module)
    elif is_function and name.startswith("_"):  # bound for the Python layer, not re-exported
        assert not hasattr(ember, name), f"{op.full_name}: ember.{name} is re-exported"
        where = ember._C
    else:
        where = ember if is_function else ember.Tensor
    assert hasattr(where, name), f"{op.full_name}: {'ember' if is_function else 'ember.Tensor'}.{name} is missing"
    if op.functional and is_function:
        assert getattr(ember.nn.functional, name) is getattr(ember, name)
    if op.python == "generated" and op.doc:
        assert codegen.python_doc(op, is_function) in getattr(where, name).__doc__


def test_tensor_methods_forward_to_the_functions():
    x = ember.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert ember.equal(x.amax(1), ember.amax(x, 1))
    assert ember.equal(x.broadcast_to((2, 2, 2)), ember.broadcast_to(x, (2, 2, 2)))
    assert ember.equal(ember.clone(x), x)
    assert isinstance(x.split(1), tuple) and isinstance(ember.unbind(x), tuple)
    values, indices = ember.max(x, 1)
    assert ember.max(x, 1).values is not None and ember.equal(indices, ember.tensor([0, 1]))
    assert ember.equal(x.masked_fill(x < 0, ember.tensor(0.0)), ember.tensor([[1.0, 0.0], [3.0, 4.0]]))
    assert ember.equal(x.sum(dtype=ember.float64), ember.tensor(6.0, dtype=ember.float64))
    with pytest.raises(ValueError, match=r"bmm: expected 3-D tensors, got \[2, 2\] and \[2, 2\]"):
        ember.bmm(x, x)


def _stubs():
    """{name: [its definitions]} of the module's functions and of Tensor's methods in the stubs; a
    submodule's functions under their dotted names ("linalg.svd", from _C/linalg.pyi)."""
    stubs = ROOT / "python" / "ember" / "_C"
    tree = ast.parse((stubs / "__init__.pyi").read_text())
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    found = ({}, {})
    for table, body in zip(found, (tree.body, tensor.body)):
        for node in body:
            if isinstance(node, ast.FunctionDef):
                table.setdefault(node.name, []).append(node)
    for module in {name.partition(".")[0] for op in BOUND for name in op.python_names if "." in name}:
        for node in ast.parse((stubs / f"{module}.pyi").read_text()).body:
            if isinstance(node, ast.FunctionDef):
                found[0].setdefault(f"{module}.{node.name}", []).append(node)
    return found


def test_the_committed_stubs_know_every_table_op():
    # python/generate_stubs.py regenerates them from a build; this fails when that was forgotten.
    functions, methods = _stubs()
    stale = []
    for op, name, is_function in bindings():
        stubs = (functions if is_function else methods).get(name)
        if not stubs:
            stale.append(f"{name} ({'function' if is_function else 'method'}) is missing")
        elif op.python == "generated" and op.doc and not any(
                codegen.python_doc(op, is_function) in (ast.get_docstring(s) or "") for s in stubs):
            stale.append(f"{name} has another docstring than the table's")
    assert not stale, "stale stubs, run python/generate_stubs.py: " + "; ".join(stale)


def load_table(tmp_path, text):
    table = tmp_path / "ops.toml"
    table.write_text(textwrap.dedent(text))
    return codegen.load(table)


@pytest.mark.parametrize("entry,message", [
    ('sig = "f(Tensor self) -> Tensor"\nkernal = "UnaryOp::F"', r"entry 1: unknown field\(s\) \['kernal'\]"),
    ('doc = "no signature"', r"entry 1: missing `sig`"),
    ('sig = "f(Tensor self)"', r"sig 'f\(Tensor self\)' is not `name\[.overload\]\(args\) -> Return`"),
    ('sig = "f(Tensor self, Float x) -> Tensor"', r"op f: argument 'Float x': expected `Type name\[=default\]`"),
    ('sig = "f(Tensor self) -> Tensor[2]"', r"op f: return type 'Tensor\[2\]'"),
    ('sig = "f(int x) -> Tensor"', r"op f: a method needs `Tensor self` as its first argument"),
    ('sig = "f(Tensor self, int[2] k) -> Tensor"', r"op f: argument k \(int\[2\]\) cannot appear in a Tensor method"),
    ('sig = "f(Tensor self, int x=None) -> Tensor"', r"op f: argument x: int cannot default to None"),
    ('sig = "f(Tensor self) -> Tensor"\npython = "yes"', r"op f: python 'yes'"),
    ('sig = "f(Tensor self) -> Tensor"\nvariants = ["method"]', r"op f: variants \['method'\]"),
    ('sig = "f(Tensor self) -> Tensor"\nkernel = "Tanh"', r"op f: kernel 'Tanh': expected `FamilyOp::Code`"),
    ('sig = "f(Scalar x, Tensor self) -> Tensor"\nvariants = ["function"]\npython_variants = ["function"]\n'
     'inplace = true', r"op f: an in-place op takes `Tensor self` first and returns one Tensor"),
    ('sig = "f(Tensor self) -> Tensor[]"\ninplace = true', r"op f: an in-place op takes `Tensor self` first"),
    ('sig = "f(Tensor self) -> Tensor"\ninplace = "maybe"', r"op f: inplace 'maybe': expected true"),
    ('sig = "f_(Tensor self) -> Tensor[]"', r"op f_: an op named with a trailing _ writes into `Tensor self`"),
])
def test_a_malformed_entry_is_an_error_naming_it(tmp_path, entry, message):
    with pytest.raises(codegen.TableError, match=message):
        load_table(tmp_path, "[[op]]\n" + entry + "\n")


def test_an_op_listed_twice_or_a_kernel_code_claimed_twice_is_an_error(tmp_path):
    with pytest.raises(codegen.TableError, match=r"op f: listed twice"):
        load_table(tmp_path, '[[op]]\nsig = "f(Tensor self) -> Tensor"\n[[op]]\nsig = "f(Tensor self) -> Tensor"\n')
    with pytest.raises(codegen.TableError, match=r"op g: kernel UnaryOp::F is already op f's"):
        load_table(tmp_path, '[[op]]\nsig = "f(Tensor self) -> Tensor"\nkernel = "UnaryOp::F"\n'
                             '[[op]]\nsig = "g(Tensor self) -> Tensor"\nkernel = "UnaryOp::F"\n')


def test_generated_declarations_follow_the_signature(tmp_path):
    ops = load_table(tmp_path, '''
        [[op]]
        sig = "f.Tensor(Tensor self, Tensor? w=None, int[] dim=None, *, float eps=1e-5) -> (Tensor values, Tensor indices)"
        kernel = ["UnaryOp::F", "UnaryOp::G"]
        doc = "One f."
    ''')
    out = codegen.outputs(ops)
    assert ("std::tuple<Tensor, Tensor> f(const Tensor& self, const Tensor& w = Tensor(), IntArrayRef dim = {}, "
            "double eps = 1e-5);") in out["include/ember/ops/functions.h"]
    assert ("std::tuple<Tensor, Tensor> f(const Tensor& w = Tensor(), IntArrayRef dim = {}, double eps = 1e-5) const;"
            in out["include/ember/core/tensor_methods.inc"])
    assert "enum class UnaryOp : uint8_t { F, G };" in out["include/ember/core/kernels/op_codes.h"]
    binding = out["python/op_bindings.cpp"]
    assert 'py::arg("input"), py::arg("w") = py::none(), py::arg("dim") = py::none(), py::kw_only(), ' \
           'py::arg("eps") = 1e-5' in binding.replace("\n      ", " ").replace(",  ", ", ")
    assert 'named_tuple("f", {"values", "indices"}, ember::f(input, w_, dim_, eps))' in binding


def test_an_inplace_entry_gives_the_method_in_cpp_and_under_each_python_name(tmp_path):
    out = codegen.outputs(load_table(tmp_path, '''
        [[op]]
        sig = "g(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
        inplace = true
        python_names = ["g", "gee", "_g"]
        doc = "One g."
    '''))
    assert "const Tensor& g_(const Tensor& other, Scalar alpha = 1) const;" in out["include/ember/core/tensor_methods.inc"]
    # other is read: its needing grad makes the op record
    assert 'detail::inplace_of(*this, "g_", {other},' in out["ops/tensor_methods.cpp"]
    binding = out["python/op_bindings.cpp"]
    assert 'cls.def("g_", [](const py::object& self' in binding and 'cls.def("gee_",' in binding
    assert 'cls.def("_g_"' not in binding  # a private name has no in-place form
    assert "self.cast<const Tensor&>().g_(other, alpha);" in binding and "return self;" in binding


def test_inplace_names_how_the_gradient_goes(tmp_path):
    out = codegen.outputs(load_table(tmp_path, '''
        [[op]]
        sig = "eqq(Tensor self, Tensor other) -> Tensor"
        inplace = "zero_grad"
        [[op]]
        sig = "andd(Tensor self, Tensor other) -> Tensor"
        inplace = "untracked"
        [[op]]
        sig = "negg(Tensor self) -> Tensor"
        inplace = true
    '''))["ops/tensor_methods.cpp"]
    assert out.count("detail::InplaceGrad::kZero") == 1 and out.count("detail::InplaceGrad::kUntracked") == 1
    assert out.count("detail::InplaceGrad::kRecorded") == 1


def test_an_op_named_with_a_trailing_underscore_returns_self_in_python_and_bool_results_are_bools(tmp_path):
    out = codegen.outputs(load_table(tmp_path, '''
        [[op]]
        sig = "fill_(Tensor self, float v) -> Tensor"
        variants = ["function"]
        python_variants = ["method"]
        [[op]]
        sig = "same(Tensor self, Tensor other) -> bool"
    '''))
    binding = out["python/op_bindings.cpp"]
    assert 'cls.def("fill_", [](const py::object& self, double v) {' in binding
    assert "ember::fill_(self.cast<const Tensor&>(), v);\n    return self;" in binding
    assert "bool same(const Tensor& self, const Tensor& other);" in out["include/ember/ops/functions.h"]
    assert ember.Tensor.normal_.__doc__ and ember.zeros(2).normal_() is not None
    t = ember.zeros(3)
    assert t.uniform_(1, 2) is t and t.fill_diagonal_ is not None


INPLACE = [(op, name + "_") for op in BOUND if op.inplace and op.python == "generated"
           for name in op.python_names if not name.startswith("_")]


@pytest.mark.parametrize("op,name", INPLACE, ids=lambda v: v if isinstance(v, str) else "")
def test_every_inplace_method_of_the_table_writes_into_self_and_returns_it(op, name):
    method = getattr(ember.Tensor, name)
    assert "In place: " + codegen.python_doc(op, False) in method.__doc__
    _, methods = _stubs()
    assert name in methods, f"stale stubs, run python/generate_stubs.py: Tensor.{name} is missing"


def test_an_inplace_method_is_the_op_written_into_self():
    x = ember.tensor([[0.5, -2.0], [3.0, 4.0]])
    view = x[0]
    assert x.exp_() is x and ember.allclose(view, ember.exp(ember.tensor([0.5, -2.0])))  # views see it
    i = ember.tensor([[1, 0]])
    y = ember.zeros(2, 2)
    assert ember.equal(y.scatter_(1, i, ember.tensor([[7.0, 8.0]])), ember.tensor([[8.0, 7.0], [0.0, 0.0]]))
    assert ember.equal(y.scatter_(0, i, 1.5, reduce="multiply"), ember.tensor([[8.0, 10.5], [0.0, 0.0]]))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.ones(2, dtype=ember.int64).exp_()
    leaf = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.sin_()
    # while recording, the op reads a copy of self: x * w saves x for w's gradient, then x changes
    w = ember.tensor([2.0, 3.0], requires_grad=True)
    base = ember.tensor([1.0, 5.0])
    out = base.mul(1.0).lerp_(w, 0.5)
    out.sum().backward()
    assert ember.equal(w.grad, ember.tensor([0.5, 0.5]))


def test_every_op_records_when_traced_and_a_program_can_replay_it(tmp_path):
    out = codegen.outputs(load_table(tmp_path, '''
        [[op]]
        sig = "h(Tensor self, int[] dims, *, ScalarType? dtype=None) -> Tensor"
        inplace = true
    '''))
    traced = out["ops/traced_ops.cpp"]
    assert 'tracing::record<Tensor>("h", [&] { return impl_h(self, dims, dtype); },' in traced
    assert "{tracing::arg(self), tracing::arg(dims), tracing::arg(dtype)}" in traced
    assert ("Tensor impl_h(const Tensor& self, IntArrayRef dims, std::optional<DType> dtype = std::nullopt);"
            in out["include/ember/ops/functions.h"])
    table = out["jit/table_ops.cpp"]
    assert 'add({"h", {{"self", "Tensor"}, {"dims", "int[]"}, {"dtype", "ScalarType?"}}, {"Tensor"},' in table
    assert "ember::h(tensor(a[0]), ints(a[1]), opt_dtype(a[2]))" in table
    assert "tensor(a[0]).h_(ints(a[1]), opt_dtype(a[2]));" in table
    assert ('tracing::record<Tensor>("h", run, {tracing::arg(*this), tracing::arg(dims), tracing::arg(dtype)}, true);'
            in out["ops/tensor_methods.cpp"])
