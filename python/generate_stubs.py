"""Regenerates the type stubs of the extension module (python/ember/_C/*.pyi) with pybind11-stubgen.

    pip install pybind11-stubgen
    PYTHONPATH=build-py/python python python/generate_stubs.py     # ember._C importable from a build

Run it after changing a binding and commit the result: the stubs ship with the package (py.typed)
so that editors and type checkers know every name and signature.
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
TARGET = HERE / "ember" / "_C"


def fix(text: str) -> str:
    # pybind11-stubgen reads a class named `dtype` as NumPy's; inside class Tensor the names dtype
    # and device are properties, so annotations use module-level aliases (as torch's stubs do).
    text = text.replace("numpy.dtype[typing.Any]", "_dtype")
    text = re.sub(r"\bdevice \| None", "_device | None", text)
    text = re.sub(r"(def \w+\([^)]*: )device\b", r"\1_device", text)
    text = text.replace("Union[bool, int, float]", "bool | int | float")
    text = text.replace("generator: Generator = None", "generator: Generator | None = None")
    text = re.sub(r"(def (split|chunk|unbind)\(.*\)) -> tuple:", r"\1 -> tuple[Tensor, ...]:", text)
    text = re.sub(r"def (\w+)\(self: _dtype", r"def \1(self", text)
    aliases = "\n_dtype: typing.TypeAlias = dtype\n_device: typing.TypeAlias = device\n"
    return re.sub(r"(\nclass Tensor:)", aliases + r"\1", text, count=1)


# Names in the annotations of Module's methods (python/src/module_protocol.cpp).
EXTRA_IMPORTS = {
    "nn/__init__.pyi": "from ember._C import Tensor\n",
}
UNRESOLVED = "^(Tensor|_IncompatibleKeys|RemovableHandle|Module|collections.OrderedDict.*|tuple.*)$"


def return_types_stub() -> str:
    """ember._C.return_types as NamedTuple classes (stubgen would import them from ember.return_types,
    which re-exports this module)."""
    sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]  # the built ember, not ./ember
    from ember._C import return_types
    lines = ['"""The named tuples ops return (torch.return_types)."""', "from __future__ import annotations",
             "import typing", "from ember._C import Tensor"]
    for name in sorted(n for n in dir(return_types) if not n.startswith("_")):
        lines += ["", f"class {name}(typing.NamedTuple):"]
        lines += [f"    {field}: Tensor" for field in getattr(return_types, name)._fields]
    return "\n".join(lines) + "\n"


def main() -> None:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "pybind11_stubgen", "ember._C", "-o", out,
                        "--ignore-unresolved-names", UNRESOLVED], check=True)
        generated = pathlib.Path(out) / "ember" / "_C"
        shutil.rmtree(TARGET, ignore_errors=True)
        TARGET.mkdir()
        for stub in sorted(generated.rglob("*.pyi")):  # _C/nn/ is a folder (nn.functional, nn.init)
            target = TARGET / stub.relative_to(generated)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = fix(stub.read_text())
            extra = EXTRA_IMPORTS.get(stub.relative_to(generated).as_posix())
            if extra:
                text = text.replace("from __future__ import annotations\n",
                                    "from __future__ import annotations\n" + extra, 1)
            if target.name == "return_types.pyi":
                text = return_types_stub()
            target.write_text(text)
            print("wrote", target)


if __name__ == "__main__":
    main()
