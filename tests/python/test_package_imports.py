"""Every module of the ember package imports as the first import of a fresh interpreter: no import
order is load-bearing, and no import cycle holds a module half-initialised (python/ember has none;
farm-studio look python/ember shows the import graph)."""
import concurrent.futures
import os
import pathlib
import subprocess
import sys

import ember

PACKAGE = pathlib.Path(ember.__file__).resolve().parent


def modules():
    """ember's module names, from the package's source files (the build links them)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def first_import(name):
    """(name, None) when `import name` works in a fresh interpreter, else (name, its stderr)."""
    run = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, timeout=120,
                         env=os.environ)
    return name, None if run.returncode == 0 else run.stderr.strip().splitlines()[-1]


def test_every_module_imports_first_in_a_fresh_interpreter():
    names = modules()
    assert len(names) > 50 and "ember.autograd.function" in names and "ember.nn.functional" in names
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failed = [f"{name}: {error}" for name, error in pool.map(first_import, names) if error]
    assert not failed, "modules that fail as a fresh interpreter's first import:\n" + "\n".join(failed)


def test_torch_module_paths_exist():
    # the paths PyTorch scripts and safe-globals lists name
    from ember.autograd.function import Function, FunctionCtx, once_differentiable  # noqa: F401
    from ember.autograd.grad_mode import enable_grad, no_grad  # noqa: F401
    from ember.nn.parameter import Parameter
    assert Parameter is ember.nn.Parameter and Function is ember.autograd.Function


def test_no_module_patches_a_cpp_class():
    # With every module of ember imported, no class of ember._C holds a method, property or
    # descriptor written in Python: the C++ classes' API is bound in C++ (issue 30).
    import importlib
    import inspect
    import types

    for name in modules():
        if not name.startswith("ember._C"):
            importlib.import_module(name)
    seen, patched, todo = set(), [], [ember._C]
    while todo:
        module = todo.pop()
        for value in vars(module).values():
            if isinstance(value, types.ModuleType) and value.__name__.startswith("ember._C") and value not in seen:
                seen.add(value)
                todo.append(value)
            elif inspect.isclass(value) and value.__module__.startswith("ember._C"):
                for attr, member in vars(value).items():
                    fn = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                    if inspect.isfunction(fn):
                        patched.append(f"{value.__module__}.{value.__qualname__}.{attr}")
    assert len(seen) >= 5
    assert not patched, f"written in Python onto C++ classes: {patched}"
