"""The CUDA backend is a library Ember opens on first use (core/backend.h), not a dependency of
libember.so: a CPU-only process maps none of CUDA's libraries, a build with CUDA imports where that
library cannot be opened (no toolkit), and PyTorch's CUDA wheel imports before or after Ember in one
process (when Ember linked the toolkit's NCCL, `import ember; import torch` failed with
"libtorch_cuda.so: undefined symbol: ncclCommResume")."""
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import ember

# The CUDA runtime, cuDNN, NCCL, cuBLAS and Ember's own CUDA backend, as mapped in a process.
MAPPED = ("import re; print(sorted(set(re.findall(r'lib(?:cudart|cudnn|nccl|cublas|ember_cuda)[^/\\s]*\\.so', "
          "open('/proc/self/maps').read()))))")
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))  # NB: not resolved: the developer build links the sources


def run(code, env=None, python=sys.executable):
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([PACKAGE_PARENT, environment.get("PYTHONPATH", "")])
    environment.update(env or {})
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()


def libember_path():
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if re.search(r"/libember\.so", path):
            return pathlib.Path(path)
    pytest.fail("libember.so is not mapped in this process")


def cuda_library():
    """libember_cuda.so beside libember.so, or None in a build without the CUDA backend."""
    path = libember_path().parent / "libember_cuda.so"
    return path if path.exists() else None


def test_a_cpu_only_process_maps_no_cuda_library():
    out = run("import ember\n"
              "from ember import nn\n"
              "model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))\n"
              "opt = ember.optim.Adam(model.parameters())\n"
              "loss = nn.functional.cross_entropy(model(ember.randn(5, 3)), ember.tensor([0, 1, 0, 1, 1]))\n"
              "loss.backward(); opt.step()\n"
              "print(ember.ones(2).device)\n" + MAPPED)
    assert out == ["cpu", "[]"]


def test_the_cuda_library_opens_on_the_first_cuda_call():
    if cuda_library() is None:
        pytest.skip("this build has no CUDA backend")
    out = run("import ember\n" + MAPPED + "\nember.cuda.is_available()\n" + MAPPED)
    assert out[0] == "[]"
    assert "libember_cuda.so" in out[1] and "libcudart.so" in out[1], out


def test_a_library_that_will_not_open_leaves_no_cuda_devices_and_says_why():
    missing = "/nonexistent/libember_cuda.so"
    out = run("import ember\n"
              "print(ember.cuda.is_available(), ember.cuda.device_count())\n"
              "try:\n"
              "    ember.zeros(2, device='cuda')\n"
              "except RuntimeError as e:\n"
              "    print(e)\n"
              "print(ember.ones(2).add(1).tolist())\n" + MAPPED, env={"EMBER_CUDA_BACKEND": missing})
    assert out[0] == "False 0"
    assert "could not be loaded" in out[1] and missing in out[1], out[1]
    assert out[2:] == ["[2.0, 2.0]", "[]"]


def test_importing_needs_no_cuda_library():
    """What the dynamic linker must find to import ember: none of CUDA's libraries, so a build with
    CUDA imports on a machine without the toolkit."""
    if shutil.which("ldd") is None:
        pytest.skip("no ldd on this machine")
    for path in (pathlib.Path(ember._C.__file__), libember_path()):
        needed = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=True).stdout
        assert not re.search(r"lib(cudart|cudnn|nccl|cublas)", needed), (path, needed)


def python_with_torch():
    if importlib.util.find_spec("torch") is not None:
        return sys.executable
    # `make bench` installs PyTorch (with its CUDA libraries) into .venv-bench
    bench = pathlib.Path(__file__).resolve().parents[2] / ".venv-bench" / "bin" / "python"
    return str(bench) if bench.exists() else None


@pytest.mark.parametrize("first", ["ember", "torch"])
def test_pytorch_imports_before_or_after_ember(first):
    python = python_with_torch()
    if python is None:
        pytest.skip("PyTorch is not installed here (make bench installs it into .venv-bench)")
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("PyTorch's libraries are not built for AddressSanitizer")
    second = "torch" if first == "ember" else "ember"
    out = run(f"import {first}\nimport {second}\n"
              "a = torch.arange(6.0).reshape(2, 3)\n"
              "b = ember.from_numpy(a.numpy())\n"
              "print((b * 2).sum().item(), (a * 2).sum().item())\n"
              # opens Ember's CUDA library (in a build with it) after both imports
              "print(ember.cuda.device_count() >= 0)",
              python=python)
    assert out == ["30.0 30.0", "True"]
