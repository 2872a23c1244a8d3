"""ember.onnx.export: a model as an ONNX file, with torch.onnx.export's signature.

The model is traced (ember.jit.trace; a traced module is taken as it is) and its eval-mode program
(io/FORMAT.md, section 8) is written op by op as ONNX nodes; parameters and buffers become
initializers under their own names. An op without an ONNX form is an error naming it. Sizes that the
program computes from its inputs' (view(B * T, C)) stay computed in the graph for the dims that
dynamic_axes makes free. Writing needs the `onnx` package (pip install onnx)."""
from __future__ import annotations

import math
import os
from typing import Any, Callable

import numpy as np

from .jit import TracedModule, trace

__all__ = ["export", "UnsupportedOperatorError"]

_NUMPY = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
          "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


class UnsupportedOperatorError(ValueError):
    """An op of the program has no ONNX form here (torch.onnx's name for the error)."""


class _Graph:
    def __init__(self, onnx, doc, state, opset):
        self.onnx, self.h, self.doc, self.opset = onnx, onnx.helper, doc, opset
        self.names: dict[int, str] = {}
        self.nodes, self.initializers = [], []
        self.state = state
        self.dim_names: dict[int, str] = {}  # the program's dims, each read from the graph once where needed
        self.free: set[int] = set()  # the program's dims that dynamic_axes leaves free
        self._n = 0

    def fresh(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def name(self, vid) -> str:
        return self.names[vid]

    def type_of(self, vid):
        dtype, shape = self.doc["types"][vid]
        return dtype, list(shape)

    def const(self, value, dtype=np.int64, hint="c") -> str:
        name = self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def initializer(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        return name

    def node(self, op: str, inputs: list[str], outputs: list[str] | None = None, **attrs) -> list[str]:
        outputs = outputs or [self.fresh(op.lower())]
        self.nodes.append(self.h.make_node(op, inputs, outputs, **attrs))
        return outputs

    def scalar_like(self, value, vid) -> str:
        """value as a 0-d constant of value vid's dtype (ONNX does not promote)."""
        return self.const(value, _NUMPY[self.type_of(vid)[0]])

    def dim_size(self, d: int) -> str:
        if d not in self.dim_names:
            i, axis = self.doc["dims"][d]["at"][0]
            shape = self.node("Shape", [self.name(self.doc["inputs"][i])])[0]
            self.dim_names[d] = self.node("Gather", [shape, self.const([axis])], axis=0)[0]
        return self.dim_names[d]

    def computed(self, node, arg: int, element: int):
        """The graph's 1-element int64 tensor computing that int argument, or None where it is a constant
        (no size rule, or one over dims the graph holds fixed)."""
        for a, e, c, terms in node.get("sizes", []):
            if a == arg and e == element and any(d in self.free for t in terms for d in t[1:]):
                total = self.const([c])
                for coef, *dims in terms:
                    part = self.const([coef])
                    for d in dims:
                        size = self.dim_size(d) if d in self.free else self.const([self.doc["dims"][d]["size"]])
                        part = self.node("Mul", [part, size])[0]
                    total = self.node("Add", [total, part])[0]
                return total
        return None

    def int_list(self, node, arg: int) -> str:
        """An int-list argument as a 1-D int64 tensor: a constant, or computed from the free dims where
        the program says so."""
        values = list(node["args"][arg])
        parts = [self.computed(node, arg, e) for e in range(len(values))]
        if all(p is None for p in parts):
            return self.const(values)
        return self.node("Concat", [p or self.const([v]) for p, v in zip(parts, values)], axis=0)[0]

    def int_1d(self, node, arg: int) -> str:
        """An int argument as a 1-element int64 tensor (computed where the program says so)."""
        return self.computed(node, arg, -1) or self.const([node["args"][arg]])

    def int_scalar(self, node, arg: int) -> str:
        """An int argument as a 0-d int64 tensor (computed where the program says so)."""
        part = self.computed(node, arg, -1)
        if part is None:
            return self.const(node["args"][arg])
        return self.node("Squeeze", [part, self.const([0])])[0]


def _pairs(v):
    return [v, v] if isinstance(v, int) else list(v)


def _emit_linear(g, n, a, out):
    x, w, b = a
    wt = g.node("Transpose", [g.name(w)], perm=[1, 0])[0]
    if b is None:
        g.node("MatMul", [g.name(x), wt], out)
    else:
        y = g.node("MatMul", [g.name(x), wt])[0]
        g.node("Add", [y, g.name(b)], out)


def _emit_conv2d(g, n, a, out):
    x, w, b, stride, padding, dilation, groups = a
    ph, pw = _pairs(padding)
    inputs = [g.name(x), g.name(w)] + ([g.name(b)] if b is not None else [])
    g.node("Conv", inputs, out, strides=_pairs(stride), pads=[ph, pw, ph, pw], dilations=_pairs(dilation),
           group=groups)


def _emit_max_pool2d(g, n, a, out):
    x, kernel, stride, padding, dilation, ceil_mode = a
    ph, pw = _pairs(padding)
    g.node("MaxPool", [g.name(x)], out, kernel_shape=_pairs(kernel), strides=_pairs(stride or kernel),
           pads=[ph, pw, ph, pw], dilations=_pairs(dilation), ceil_mode=int(ceil_mode))


def _emit_avg_pool2d(g, n, a, out):
    x, kernel, stride, padding, ceil_mode, count_include_pad, divisor = a
    if divisor is not None:
        raise UnsupportedOperatorError("ember.onnx.export: avg_pool2d with divisor_override has no ONNX form")
    ph, pw = _pairs(padding)
    g.node("AveragePool", [g.name(x)], out, kernel_shape=_pairs(kernel), strides=_pairs(stride or kernel),
           pads=[ph, pw, ph, pw], ceil_mode=int(ceil_mode), count_include_pad=int(count_include_pad))


def _emit_adaptive_avg_pool2d(g, n, a, out):
    x, size = a
    if _pairs(size) != [1, 1]:
        raise UnsupportedOperatorError(f"ember.onnx.export: adaptive_avg_pool2d to {size} has no ONNX form "
                                       "(only to 1x1: GlobalAveragePool)")
    g.node("GlobalAveragePool", [g.name(x)], out)


def _emit_batch_norm(g, n, a, out):
    x, mean, var, w, b, training, momentum, eps = a
    _, shape = g.type_of(x)
    channels = shape[1]
    scale = g.name(w) if w is not None else g.const(np.ones(channels), np.float32)
    bias = g.name(b) if b is not None else g.const(np.zeros(channels), np.float32)
    if mean is None:
        raise UnsupportedOperatorError("ember.onnx.export: batch_norm without running statistics has no eval form")
    g.node("BatchNormalization", [g.name(x), scale, bias, g.name(mean), g.name(var)], out, epsilon=eps)


def _emit_layer_norm(g, n, a, out):
    x, shape, w, b, eps = a
    _, xs = g.type_of(x)
    inputs = [g.name(x), g.name(w) if w is not None else g.const(np.ones(shape), np.float32)]
    if b is not None:
        inputs.append(g.name(b))
    g.node("LayerNormalization", inputs, out, axis=-len(shape), epsilon=eps)


def _emit_gelu(g, n, a, out):
    x, approximate = a
    name = g.name(x)
    if g.opset >= 20:
        g.node("Gelu", [name], out, approximate=approximate)
        return
    if approximate == "tanh":
        cube = g.node("Mul", [name, g.node("Mul", [name, name])[0]])[0]
        inner = g.node("Add", [name, g.node("Mul", [cube, g.scalar_like(0.044715, x)])[0]])[0]
        t = g.node("Tanh", [g.node("Mul", [inner, g.scalar_like(math.sqrt(2 / math.pi), x)])[0]])[0]
    else:
        t = g.node("Erf", [g.node("Mul", [name, g.scalar_like(1 / math.sqrt(2), x)])[0]])[0]
    one_plus = g.node("Add", [t, g.scalar_like(1.0, x)])[0]
    half_x = g.node("Mul", [name, g.scalar_like(0.5, x)])[0]
    g.node("Mul", [half_x, one_plus], out)


def _binary(op):
    def emit(g, n, a, out):
        self, other = a[0], a[1]
        alpha = a[2] if len(a) > 2 else 1
        rhs = g.name(other)
        if alpha != 1:
            rhs = g.node("Mul", [rhs, g.scalar_like(alpha, other)])[0]
        g.node(op, [g.name(self), rhs], out)
    return emit


def _scalar(op):
    def emit(g, n, a, out):
        g.node(op, [g.name(a[0]), g.scalar_like(a[1], a[0])], out)
    return emit


def _unary(op):
    def emit(g, n, a, out):
        g.node(op, [g.name(a[0])], out)
    return emit


def _emit_identity(g, n, a, out):
    g.node("Identity", [g.name(a[0])], out)


def _emit_reshape(g, n, a, out):
    g.node("Reshape", [g.name(a[0]), g.int_list(n, 1)], out)


def _onnx_dtype(g, vid):
    return g.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(_NUMPY[g.type_of(vid)[0]]))


def _emit_full(g, n, a, out):
    value, dtype = a[1], g.type_of(n["outputs"][0])[0]
    fill = g.onnx.numpy_helper.from_array(np.asarray([value], dtype=_NUMPY[dtype]), g.fresh("value"))
    g.node("ConstantOfShape", [g.int_list(n, 0)], out, value=fill)


def _emit_arange(g, n, a, out):
    start, end, step = a[0], a[1], a[2]
    if not all(isinstance(v, int) for v in (start, end, step)):
        raise UnsupportedOperatorError("ember.onnx.export: arange over floats has no exact ONNX form here")
    r = g.node("Range", [g.const(start), g.int_scalar(n, 1), g.const(step)])[0]
    g.node("Cast", [r], out, to=_onnx_dtype(g, n["outputs"][0]))


def _emit_to_dtype(g, n, a, out):
    g.node("Cast", [g.name(a[0])], out, to=_onnx_dtype(g, n["outputs"][0]))


def _emit_flatten(g, n, a, out):
    x, start, end = a
    _, shape = g.type_of(x)
    rank = len(shape)
    start, end = start % max(rank, 1), end % max(rank, 1)
    target = [0] * start + [-1] + [0] * (rank - end - 1)
    g.node("Reshape", [g.name(x), g.const(target)], out)


def _emit_transpose(g, n, a, out):
    x, d0, d1 = a
    rank = len(g.type_of(x)[1])
    perm = list(range(rank))
    perm[d0 % rank], perm[d1 % rank] = perm[d1 % rank], perm[d0 % rank]
    g.node("Transpose", [g.name(x)], out, perm=perm)


def _emit_permute(g, n, a, out):
    rank = len(g.type_of(a[0])[1])
    g.node("Transpose", [g.name(a[0])], out, perm=[d % rank for d in a[1]])


def _softmax(op):
    def emit(g, n, a, out):
        x, dim, dtype = a
        if dtype is not None:
            x_name = g.node("Cast", [g.name(x)], to=g.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(_NUMPY[dtype])))[0]
        else:
            x_name = g.name(x)
        g.node(op, [x_name], out, axis=dim)
    return emit


def _emit_embedding(g, n, a, out):
    w, idx, padding_idx = a
    g.node("Gather", [g.name(w), g.name(idx)], out, axis=0)


def _emit_masked_fill(g, n, a, out):
    x, mask, value = a
    g.node("Where", [g.name(mask), g.scalar_like(value, x), g.name(x)], out)


def _emit_slice(g, n, a, out):
    x, dim, start, end, step = a
    starts = g.const([0]) if start is None else g.int_1d(n, 2)
    ends = g.const([np.iinfo(np.int64).max]) if end is None else g.int_1d(n, 3)
    g.node("Slice", [g.name(x), starts, ends, g.const([dim]), g.const([step])], out)


def _emit_select(g, n, a, out):
    x, dim, index = a
    g.node("Gather", [g.name(x), g.int_scalar(n, 2)], out, axis=dim)


def _emit_split(g, n, a, out):
    x, size, dim = a
    _, shape = g.type_of(x)
    total = shape[dim]
    sizes = [size] * (total // size) + ([total % size] if total % size else [])
    g.node("Split", [g.name(x), g.const(sizes)], out, axis=dim)


def _emit_cat(g, n, a, out):
    g.node("Concat", [g.name(t) for t in a[0]], out, axis=a[1])


def _emit_unsqueeze(g, n, a, out):
    g.node("Unsqueeze", [g.name(a[0]), g.const([a[1]])], out)


def _emit_mean(g, n, a, out):
    x, dims, keepdim, dtype = a
    rank = len(g.type_of(x)[1])
    dims = list(range(rank)) if not dims else [d % rank for d in dims]
    g.node("ReduceMean", [g.name(x), g.const(dims)], out, keepdims=int(keepdim))


def _emit_dropout(g, n, a, out):
    if a[2]:
        raise UnsupportedOperatorError("ember.onnx.export: dropout in training mode (export exports the eval program)")
    g.node("Identity", [g.name(a[0])], out)


def _emit_lstm(g, n, a, out):
    x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = a
    if bidirectional or batch_first:
        raise UnsupportedOperatorError("ember.onnx.export: lstm is exported for one direction, sequence first")
    h0, c0 = hx
    per = 4 if has_biases else 2
    hidden = g.type_of(h0)[1][2]

    def gates(w):  # PyTorch's i, f, g, o blocks in ONNX's i, o, f, c order
        i, f, c, o = np.split(w, 4, axis=0)
        return np.concatenate([i, o, f, c], axis=0)

    layer_in = g.name(x)
    hs, cs = [], []
    for layer in range(num_layers):
        p = [g.state[q] for q in params[layer * per:(layer + 1) * per]]
        w = g.initializer(g.fresh("lstm_W"), gates(p[0])[None])
        r = g.initializer(g.fresh("lstm_R"), gates(p[1])[None])
        bias = np.concatenate([gates(p[2]), gates(p[3])]) if has_biases else np.zeros(8 * hidden, np.float32)
        b = g.initializer(g.fresh("lstm_B"), bias[None])
        h_init = g.node("Slice", [g.name(h0), g.const([layer]), g.const([layer + 1]), g.const([0])])[0]
        c_init = g.node("Slice", [g.name(c0), g.const([layer]), g.const([layer + 1]), g.const([0])])[0]
        y, yh, yc = g.node("LSTM", [layer_in, w, r, b, "", h_init, c_init],
                           [g.fresh("lstm_y"), g.fresh("lstm_h"), g.fresh("lstm_c")], hidden_size=hidden)
        layer_in = g.node("Squeeze", [y, g.const([1])])[0]
        hs.append(yh)
        cs.append(yc)
    g.node("Identity", [layer_in], [out[0]])
    g.node("Concat", hs, [out[1]], axis=0)
    g.node("Concat", cs, [out[2]], axis=0)


_EMITTERS: dict[str, Callable] = {
    "factory.full": _emit_full, "factory.arange": _emit_arange, "to.dtype": _emit_to_dtype,
    "nn.linear": _emit_linear, "conv2d": _emit_conv2d, "max_pool2d": _emit_max_pool2d,
    "avg_pool2d": _emit_avg_pool2d, "adaptive_avg_pool2d": _emit_adaptive_avg_pool2d, "batch_norm": _emit_batch_norm,
    "layer_norm": _emit_layer_norm, "gelu": _emit_gelu, "relu": _unary("Relu"), "tanh": _unary("Tanh"),
    "sigmoid": _unary("Sigmoid"), "exp": _unary("Exp"), "neg": _unary("Neg"), "sqrt": _unary("Sqrt"),
    "add.Tensor": _binary("Add"), "Tensor.add_": _binary("Add"), "sub.Tensor": _binary("Sub"),
    "mul.Tensor": _binary("Mul"), "Tensor.mul_": _binary("Mul"), "div.Tensor": _binary("Div"),
    "matmul": _binary("MatMul"), "add.Scalar": _scalar("Add"), "sub.Scalar": _scalar("Sub"),
    "mul.Scalar": _scalar("Mul"), "div.Scalar": _scalar("Div"), "eq.Scalar": _scalar("Equal"),
    "contiguous": _emit_identity, "clone": _emit_identity, "Tensor.detach": _emit_identity,
    "view": _emit_reshape, "reshape": _emit_reshape, "flatten": _emit_flatten, "transpose": _emit_transpose,
    "permute": _emit_permute, "softmax": _softmax("Softmax"), "log_softmax": _softmax("LogSoftmax"),
    "embedding": _emit_embedding, "masked_fill": _emit_masked_fill, "slice": _emit_slice, "select": _emit_select,
    "split": _emit_split, "cat": _emit_cat, "unsqueeze": _emit_unsqueeze, "mean": _emit_mean,
    "dropout": _emit_dropout, "lstm": _emit_lstm,
}


def _flat_ids(tree, out):
    if isinstance(tree, int):
        out.append(tree)
    elif isinstance(tree, dict):
        for v in tree.values():
            _flat_ids(v, out)
    elif isinstance(tree, (list, tuple)):
        for v in tree:
            _flat_ids(v, out)


def export(model: Any, args: Any, f: Any, export_params: bool = True, verbose: bool = False, training: Any = None,
           input_names: list[str] | None = None, output_names: list[str] | None = None, opset_version: int | None = None,
           dynamic_axes: dict | None = None, do_constant_folding: bool = True, **kwargs: Any) -> None:
    """Writes model (a module, or a traced one) run on args (a tensor or a tuple of tensors) to f (a
    path or a binary file) as ONNX: its eval-mode program, parameters as initializers. dynamic_axes
    ({"input": {0: "batch"}, ...}) names free dimensions; the batch dimension may be free where the
    program follows the batch size (ember.jit.trace)."""
    try:
        import onnx
    except ImportError as e:
        raise ImportError("ember.onnx.export writes with the onnx package: pip install onnx") from e
    opset = 17 if opset_version is None else int(opset_version)
    if opset < 17:
        raise ValueError(f"ember.onnx.export: opset_version {opset} is below 17, the first with LayerNormalization")
    traced = model if isinstance(model, TracedModule) else trace(model, args)
    doc = traced._program(False)
    state = {k: v for k, v in traced.named_parameters(remove_duplicate=False)}
    state.update({k: v for k, v in traced.named_buffers(remove_duplicate=False)})
    arrays = {}
    for name, vid in doc["state"].items():
        arrays[vid] = state[name].detach().numpy()
    g = _Graph(onnx, doc, arrays, opset)
    dynamic_axes = dynamic_axes or {}
    inputs = doc["inputs"]
    input_names = list(input_names or [f"input{i}" if len(inputs) > 1 else "input" for i in range(len(inputs))])
    out_ids: list[int] = []
    _flat_ids(doc["outputs"], out_ids)
    output_names = list(output_names or [f"output{i}" if len(out_ids) > 1 else "output" for i in range(len(out_ids))])
    if len(input_names) != len(inputs) or len(output_names) != len(out_ids):
        raise ValueError(f"ember.onnx.export: the program has {len(inputs)} inputs and {len(out_ids)} outputs, "
                         f"got {len(input_names)} input names and {len(output_names)} output names")
    for i, name in enumerate(input_names):
        axes = dynamic_axes.get(name) or {}
        for axis in (axes.keys() if isinstance(axes, dict) else axes):
            found = [d for d, dim in enumerate(doc.get("dims", [])) if [i, axis] in [list(x) for x in dim["at"]]]
            if not found:
                size = g.type_of(inputs[i])[1][axis]
                raise ValueError(f"ember.onnx.export: dynamic_axes frees dim {axis} of '{name}', but the traced program "
                                 f"holds it at {size}, the size it was traced at (ember.jit.trace found no rule for "
                                 "other sizes: the forward used it outside the ops, or failed at other sizes)")
            g.free.update(found)

    def value_info(name, vid):
        dtype, shape = g.type_of(vid)
        dims: list = list(shape)
        axes = dynamic_axes.get(name)
        labels = axes.items() if isinstance(axes, dict) else ((axis, f"{name}_dim{axis}") for axis in (axes or []))
        for axis, label in labels:
            dims[axis] = label
        return onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(np.dtype(_NUMPY[dtype])), dims)

    graph_inputs = []
    for name, vid in zip(input_names, inputs):
        g.names[vid] = name
        graph_inputs.append(value_info(name, vid))
    for name, vid in doc["state"].items():
        g.names[vid] = g.initializer(name, arrays[vid])
    for vid, t in doc["constants"].items():
        g.names[vid] = g.initializer(f"constant{vid}", t.detach().numpy())
    for k, node in enumerate(doc["nodes"]):
        op = node["op"]
        emit = _EMITTERS.get(op)
        if emit is None or node.get("inplace"):
            raise UnsupportedOperatorError(f"ember.onnx.export: op '{op}{'_' if node.get('inplace') else ''}' (node {k})"
                                           " has no ONNX form here")
        outs = []
        for o in node["outputs"]:
            if isinstance(o, list):
                for vid in o:
                    g.names[vid] = f"v{vid}"
                    outs.append(g.names[vid])
            elif o is not None:
                g.names[o] = f"v{o}"
                outs.append(g.names[o])
        emit(g, node, node["args"], outs)
    graph_outputs = []
    for name, vid in zip(output_names, out_ids):
        g.node("Identity", [g.name(vid)], [name])
        graph_outputs.append(value_info(name, vid))
    graph = onnx.helper.make_graph(g.nodes, "ember", graph_inputs, graph_outputs, g.initializers)
    m = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)], producer_name="ember")
    onnx.checker.check_model(m)
    if hasattr(f, "write"):
        f.write(m.SerializeToString())
    else:
        onnx.save(m, os.fspath(f))
