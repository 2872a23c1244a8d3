"""A program as Python source over `L` (torch or ember) and `F` (its nn.functional), for reports and for
the "code" field of saved cases: what a person pastes to reproduce a mismatch."""
import numpy as np

import encoding

DTYPE = {"float32": "L.float32", "float64": "L.float64", "int64": "L.int64", "bool": "L.bool"}


def literal(v, float32=False):
    if isinstance(v, float):
        s = str(np.float32(v)) if float32 else repr(v)  # the shortest text that reads back the same float32
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(s, s)
    return repr(v)


def nested(data, shape, float32):
    if not shape:
        return literal(data[0], float32)
    step = len(data) // shape[0] if shape[0] else 0
    return "[" + ", ".join(nested(data[i * step:(i + 1) * step], shape[1:], float32) for i in range(shape[0])) + "]"


def tensor(e):
    dtype = DTYPE.get(e["dtype"], "L." + e["dtype"])
    grad = ", requires_grad=True" if e.get("grad") else ""
    if 0 in e["shape"]:
        return f"L.zeros({tuple(e['shape'])}, dtype={dtype}){'.requires_grad_()' if grad else ''}"
    data = [encoding.unnumber(v) for v in e["data"]]
    if e["dtype"] == "bool":
        data = [bool(v) for v in data]
    return f"L.tensor({nested(data, e['shape'], e['dtype'] == 'float32')}, dtype={dtype}{grad})"


def arg(a):
    if isinstance(a, list):
        return "[" + ", ".join(arg(x) for x in a) + "]"
    if not isinstance(a, dict):
        return literal(a)
    if "v" in a:
        return f"v{a['v']}"
    if "dtype" in a:
        return DTYPE.get(a["dtype"], "L." + a["dtype"])
    if "slice" in a:
        parts = ["" if x is None else str(x) for x in a["slice"]]
        return ":".join(parts[:2]) + (f":{parts[2]}" if parts[2] else "")
    if "ellipsis" in a:
        return "..."
    if "tuple" in a:
        items = [arg(x) for x in a["tuple"]]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if "f" in a:
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}[a["f"]]
    return repr(a)


def index(a):
    """An index as written between brackets (tuples without their parentheses)."""
    if isinstance(a, dict) and "tuple" in a:
        return ", ".join(arg(x) for x in a["tuple"]) or "()"
    return arg(a)


def call(node):
    args = [arg(a) for a in node.get("args", [])]
    kwargs = [f"{k}={arg(v)}" for k, v in node.get("kwargs", {}).items()]
    c = node["call"]
    if c.startswith("L.") or c.startswith("F."):
        text = f"{c}({', '.join(args + kwargs)})"
    elif c.startswith("."):
        text = f"{args[0]}{c}({', '.join(args[1:] + kwargs)})"
    elif c.startswith("@"):
        text = f"{args[0]}.{c[1:]}"
    elif c == "[]":
        text = f"{args[0]}[{index(node['args'][1])}]"
    else:
        return f"{args[0]}[{index(node['args'][1])}] = {args[2]}"
    if "pick" in node:
        text += f"[{node['pick']}]"
    return text


def render(prog):
    lines = []
    for i, node in enumerate(prog["nodes"]):
        if "input" in node:
            lines.append(f"v{i} = {tensor(node['input'])}")
        elif node["call"] == "[]=":
            lines.append(call(node))
            lines.append(f"v{i} = v{node['args'][0]['v']}")
        else:
            lines.append(f"v{i} = {call(node)}")
    roots = prog.get("backward", [])
    if roots:
        vs = ", ".join(f"v{r['v']}" for r in roots)
        gs = ", ".join(f"L.ones_like(v{r['v']})" if r["grad"] == "ones" else tensor(r["grad"]) for r in roots)
        lines.append(f"L.autograd.backward([{vs}], [{gs}])")
    return "\n".join(lines)
