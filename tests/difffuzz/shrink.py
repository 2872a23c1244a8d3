"""Shrinking a failing program to a small one that fails the same way.

`shrink(prog, still_fails)` tries smaller candidates in passes, keeping each one for which
still_fails(candidate) is true (the driver's test: torch runs it, Ember runs it, and the comparison
gives the same category, at an op of the same name where the category names one), until a whole round
changes nothing or the budget of evaluations or seconds is spent:
  1. backward: drop it, then each root; cotangents made "ones" (of whatever shape the root has then);
  2. nodes, last first: drop one (with every node that uses it), or bypass it (its users take its first
     tensor argument instead); then inputs nobody uses go;
  3. inputs: stop requiring grad; shrink each dim (to 1, to half), drop size-1 dims;
  4. values: a whole input rounded (to 1 decimal, to integers), zeros, ones; then element by element
     to 0 or 1 (small inputs).
Every candidate is plain data, so a candidate torch rejects is simply not kept. Two marks the generator
leaves keep shrinking out of unspecified behaviour: a node marked "keep" is never bypassed (the sort that
makes searchsorted's boundaries sorted), an input marked "distinct" keeps its values (indices that must
not repeat).
"""
import copy
import time

import numpy as np

import encoding
from generator import refs
from render import literal


def remap(prog, keep):
    """prog with only the nodes in `keep` (sorted indices), references renumbered; None if a kept node
    uses a dropped one."""
    new_index = {old: new for new, old in enumerate(keep)}
    out = {k: v for k, v in prog.items() if k not in ("nodes", "backward")}

    def fix(a):
        if isinstance(a, list):
            return [fix(x) for x in a]
        if isinstance(a, dict):
            if "v" in a:
                return {"v": new_index[a["v"]]}
            if "tuple" in a:
                return {"tuple": fix(a["tuple"])}
        return a
    nodes = []
    for old in keep:
        node = copy.deepcopy(prog["nodes"][old])
        if any(r not in new_index for r in refs(node)):
            return None
        if "args" in node:
            node["args"] = fix(node["args"])
        if "kwargs" in node:
            node["kwargs"] = {k: fix(v) for k, v in node["kwargs"].items()}
        nodes.append(node)
    out["nodes"] = nodes
    out["backward"] = [dict(r, v=new_index[r["v"]]) for r in prog.get("backward", []) if r["v"] in new_index]
    return out


def users(prog):
    """For each node, the set of nodes whose arguments use it."""
    u = [set() for _ in prog["nodes"]]
    for i, node in enumerate(prog["nodes"]):
        for r in refs(node):
            u[r].add(i)
    return u


def drop(prog, k):
    """prog without node k and every node that uses it (transitively)."""
    u = users(prog)
    gone, todo = set(), [k]
    while todo:
        i = todo.pop()
        if i not in gone:
            gone.add(i)
            todo.extend(u[i])
    return remap(prog, [i for i in range(len(prog["nodes"])) if i not in gone])


def drop_unused_inputs(prog):
    u = users(prog)
    roots = {r["v"] for r in prog.get("backward", [])}
    keep = [i for i, n in enumerate(prog["nodes"]) if "input" not in n or u[i] or i in roots]
    return remap(prog, keep) if len(keep) < len(prog["nodes"]) else prog


def bypass(prog, k):
    """prog where node k's users use k's first tensor argument instead, and node k is gone."""
    node = prog["nodes"][k]
    first = next((a["v"] for a in node.get("args", []) if isinstance(a, dict) and "v" in a), None)
    if first is None:
        return None
    p = copy.deepcopy(prog)

    def swap(a):
        if isinstance(a, list):
            return [swap(x) for x in a]
        if isinstance(a, dict):
            if a.get("v") == k:
                return {"v": first}
            if "tuple" in a:
                return {"tuple": swap(a["tuple"])}
        return a
    for n in p["nodes"][k + 1:]:
        if "args" in n:
            n["args"] = swap(n["args"])
        if "kwargs" in n:
            n["kwargs"] = {key: swap(v) for key, v in n["kwargs"].items()}
    p["backward"] = [dict(r, v=first if r["v"] == k else r["v"]) for r in p.get("backward", [])]
    return remap(p, [i for i in range(len(p["nodes"])) if i != k])


def with_input(prog, k, array, **extra):
    p = copy.deepcopy(prog)
    spec = p["nodes"][k]["input"]
    e = encoding.entry(array, spec["dtype"])
    p["nodes"][k]["input"] = dict(spec, shape=e["shape"], data=e["data"], **extra)
    return p


def candidates_backward(prog):
    roots = prog.get("backward", [])
    if roots:
        yield dict(prog, backward=[])
    if len(roots) > 1:
        for i in range(len(roots)):
            yield dict(prog, backward=roots[:i] + roots[i + 1:])
    if any(r["grad"] != "ones" for r in roots):
        yield dict(prog, backward=[dict(r, grad="ones") for r in roots])


def candidates_nodes(prog):
    for k in reversed(range(len(prog["nodes"]))):
        if "call" in prog["nodes"][k]:
            yield drop(prog, k)
            if not prog["nodes"][k].get("keep"):
                yield bypass(prog, k)


def candidates_inputs(prog):
    for k, node in enumerate(prog["nodes"]):
        if "input" not in node:
            continue
        spec = node["input"]
        if spec.get("grad"):
            yield with_input(prog, k, encoding.array(spec), grad=False)
        a = encoding.array(spec)
        for d, size in enumerate(a.shape):
            if size > 1:
                yield with_input(prog, k, np.take(a, [0], axis=d))
                yield with_input(prog, k, np.take(a, range(size // 2), axis=d))
            if size == 1:
                yield with_input(prog, k, np.squeeze(a, axis=d))


def candidates_values(prog):
    for k, node in enumerate(prog["nodes"]):
        if "input" not in node:
            continue
        a = encoding.array(node["input"])
        if a.size == 0 or a.dtype == np.bool_ or node["input"].get("distinct"):
            continue
        for b in (np.round(a, 1), np.round(a), np.zeros_like(a), np.ones_like(a)):
            if not np.array_equal(a, b, equal_nan=True):
                yield with_input(prog, k, b.astype(a.dtype))
        if a.size <= 24:
            flat = a.ravel()
            for i in range(flat.size):
                for v in (0, 1):
                    if flat[i] != v:
                        b = flat.copy()
                        b[i] = v
                        yield with_input(prog, k, b.reshape(a.shape))


PASSES = (candidates_backward, candidates_nodes, candidates_inputs, candidates_values)


def size(prog):
    """What shrinking lowers: nodes, backward roots, inputs requiring grad, elements, then the length of
    the values as written (float32 ones as their shortest text)."""
    inputs = [n["input"] for n in prog["nodes"] if "input" in n]
    elements = sum(len(e["data"]) for e in inputs)
    chars = sum(len(literal(encoding.unnumber(v), e["dtype"] == "float32")) for e in inputs for v in e["data"])
    return (len(prog["nodes"]), len(prog.get("backward", [])), sum(bool(e.get("grad")) for e in inputs), elements,
            chars)


def shrink(prog, still_fails, max_evals=300, max_seconds=90.0):
    """The smallest program found that still fails (prog itself if nothing smaller does), and the
    number of candidates evaluated."""
    best = drop_unused_inputs(prog)
    if best is not prog and not still_fails(best):
        best = prog
    evals, deadline = 0, time.monotonic() + max_seconds
    changed = True
    while changed:
        changed = False
        for make in PASSES:
            progress = True
            while progress:
                progress = False
                for cand in make(best):
                    if cand is None:
                        continue
                    cand = drop_unused_inputs(cand)
                    if size(cand) >= size(best) and cand.get("backward") == best.get("backward"):
                        continue
                    if evals >= max_evals or time.monotonic() > deadline:
                        return best, evals
                    evals += 1
                    if still_fails(cand):
                        best, progress, changed = cand, True, True
                        break
    return best, evals
