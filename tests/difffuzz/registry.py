"""The op table: every op the generator can draw registers a builder here (ops_*.py, one family a file).

A builder is `build(g)` over a generator context (generator.Gen): it picks operands among the values so
far (g.pick) or makes fresh inputs (g.fresh), then adds one or more call nodes (g.call). The context runs
each node in torch as it is added, so a builder may draw arguments loosely: a node torch rejects makes the
generator draw again (or, now and then, keep it as a program that must fail in Ember too).
"""
OPS = []  # (name, weight, build)


def op(name, weight=1.0):
    def register(build):
        OPS.append((name, weight, build))
        return build
    return register


def register(name, build, weight=1.0):
    OPS.append((name, weight, build))


def is_float(m):
    return m.dtype in ("float32", "float64")


def is_int(m):
    return m.dtype in ("int64", "int32")


def is_bool(m):
    return m.dtype == "bool"


def numel(m):
    n = 1
    for s in m.shape:
        n *= s
    return n
