"""Entries of a module that a Python utility has taken over: PyTorch deletes them, Ember hides them.

torch.nn.utils.parametrize, weight_norm, spectral_norm and prune delete a registered parameter
(`del module._parameters["weight"]`) and put a tensor computed from other parameters in its place.
Ember's registry is C++ and cannot unregister, and the built-in layers read their tensors from it
at each call (Linear::forward reads parameter("weight")). So the slot stays: the utility's forward
pre-hook puts the computed tensor into it before each call, and the Python half of Module
(modules.py) skips the hidden name wherever PyTorch would no longer see it: named_parameters,
named_buffers, named_children, named_modules, state_dict and load_state_dict. Reading the
attribute gives what the utility says (the computed tensor, or AttributeError for a child that
PyTorch would have deleted).

A hidden entry is recorded in a table keyed by the C++ module (built-in layers have no __dict__,
and may reach Python as a new object each time), under the name, as one of: SLOT (read the C++
slot as it is: a hook keeps it current), GONE (AttributeError), or a function getter(module, name)
(computed on each access, as parametrize's property). The functions are module-level, never
closures over a module, so a copy of a module (_module_copy.py) can take them over. NB: the table
holds the module's Python object, so the key cannot be reused by another module; a module with
hidden entries therefore lives until the interpreter ends (or the last entry is unhidden).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import _C

SLOT = "slot"
GONE = "gone"

_table: dict = {}  # C++ address -> (module, {name: (how, setter)}, {utility state})


def _row(module: Any, create: bool = False):
    key = _C.nn._address(module)
    row = _table.get(key)
    if row is None and create:
        row = _table[key] = (module, {}, {})
    return row


def hide(module: Any, name: str, how: Any = SLOT, setter: Callable | None = None) -> None:
    """Hides entry `name` of `module` (see the module docstring for `how`); setter(module, name,
    value), if given, is what `module.name = value` runs."""
    _row(module, True)[1][name] = (how, setter)


def unhide(module: Any, name: str) -> None:
    row = _row(module)
    if row is not None:
        row[1].pop(name, None)
        if not row[1] and not row[2]:
            del _table[_C.nn._address(module)]


def extras(module: Any) -> dict:
    """A dict a utility keeps per module (hook handles, ...), kept as long as the module has
    hidden entries; clear it when done."""
    return _row(module, True)[2]


def spec(module: Any, name: str) -> tuple | None:
    """(how, setter) when `name` is hidden in `module`, else None."""
    if not _table:
        return None
    row = _row(module)
    return row[1].get(name) if row is not None else None


def names(module: Any) -> list:
    if not _table:
        return []
    row = _row(module)
    return list(row[1]) if row is not None else []


def specs(module: Any) -> dict:
    row = _row(module)
    return dict(row[1]) if row is not None else {}


def read(module: Any, name: str, how: Any) -> Any:
    if how is GONE:
        raise AttributeError(f"'{type(module).__name__}' object has no attribute '{name}'")
    if how is SLOT:
        return module._entry(name)[1]  # the computed tensor as it is: not a Parameter
    return how(module, name)


def under(root: Any) -> list:
    """The structured names (relative to root) of every hidden entry in root's tree; [] fast when
    no module was ever given one."""
    if not _table:
        return []
    out = []
    for prefix, m in root.named_modules():
        out.extend(f"{prefix}.{n}" if prefix else n for n in names(m))
    return out


def is_under(name: str, hidden: list) -> bool:
    """Whether structured `name` is a hidden entry or lies inside a hidden child."""
    return any(name == h or name.startswith(h + ".") for h in hidden)


def load_state_dict(module: Any, items: list, strict: bool) -> tuple:
    """Module.load_state_dict for a tree with hidden entries: missing and unexpected keys are
    judged against the keys state_dict() shows (the C++ loader would want the hidden slots too),
    and the C++ loader copies the rest. Returns (missing, unexpected, shape mismatches)."""
    expected = list(module.state_dict().keys())
    given = [k for k, _ in items]
    missing = [k for k in expected if k not in set(given)]
    unexpected = [k for k in given if k not in set(expected)]
    if strict and (missing or unexpected):
        lines = []
        if missing:
            lines.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        if unexpected:
            lines.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
        raise KeyError("\n\t".join(lines))
    known = set(expected)
    _, _, mismatches = module._load_state_dict([(k, v) for k, v in items if k in known], False)
    return missing, unexpected, mismatches


def register(module: Any, name: str, tensor: Any, buffer: bool = False) -> None:
    """register_parameter / register_buffer, or, where a utility hid an entry of that name before
    (GONE: torch would have deleted it), that entry brought back with the new tensor."""
    if spec(module, name) is not None and (module._has_buffer(name) if buffer else module._has_parameter(name)):
        unhide(module, name)
        if buffer:
            module._replace_buffer(name, tensor)
        else:
            module._replace_parameter(name, tensor)
    elif buffer:
        module.register_buffer(name, tensor)
    else:
        module.register_parameter(name, tensor)
