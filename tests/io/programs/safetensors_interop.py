"""Interop between Ember checkpoints and the `safetensors` Python package (FORMAT.md §1).

    python safetensors_interop.py ember-to-python PROGRAM DIR
        PROGRAM (safetensors_interop.cpp) writes DIR/numpy.ember and DIR/bfloat16.ember; this
        script reads them with safetensors.numpy.load_file and safe_open and checks every tensor
        bit for bit and Ember's document in __metadata__.
    python safetensors_interop.py python-to-ember PROGRAM DIR
        this script writes DIR/from_numpy.safetensors (safetensors.numpy.save_file, with
        metadata) and DIR/bfloat16.safetensors; PROGRAM loads them with io::load and checks them.

The expected values are the literals of safetensors_interop.cpp. numpy has no bfloat16, so that
dtype goes through safetensors' framework-free API (deserialize / serialize_file) as raw bytes.
Exit status 0 when every check passes.
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import safetensors
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

I64 = np.iinfo(np.int64)
I32 = np.iinfo(np.int32)

EXPECTED = {
    "f32": np.array([[1.5, -2.25, 0.0], [0.125, 1024.0, -0.0]], dtype=np.float32),
    "f64": np.array([0.1, -1e300, 5e-324], dtype=np.float64),
    "f16": np.array([0x3C00, 0xC100, 0x7BFF, 0x1400], dtype="<u2").view(np.float16),
    "i64": np.array([[I64.min, -1], [0, I64.max]], dtype=np.int64),
    "i32": np.array([I32.min, 7, I32.max], dtype=np.int32),
    "u8": np.array([0, 1, 127, 255], dtype=np.uint8),
    "bool": np.array([[True, False], [False, True]]),
    "scalar": np.array(2.5, dtype=np.float64),
    "empty": np.zeros((0, 3), dtype=np.float32),
}
# Only in the Ember file: a non-contiguous view saved by value, and a tied pair.
EMBER_ONLY = {
    "transposed": np.array([[1, 4], [2, 5], [3, 6]], dtype=np.float32),
    "model/embed.weight": np.array([[1, 2], [3, 4]], dtype=np.float32),
}
BF16_BITS = np.array([0x3F80, 0xC020, 0x7F7F, 0x0001], dtype="<u2")

failures = []


def check(cond, message):
    if not cond:
        failures.append(message)
        print("FAILED:", message, file=sys.stderr)


def same_bits(got, expected):
    return got.dtype == expected.dtype and got.shape == expected.shape and got.tobytes() == expected.tobytes()


def run(program, *args):
    result = subprocess.run([program, *args], capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


def ember_to_python(program, work):
    if run(program, "write", work) != 0:
        check(False, f"{program} write {work} failed")
        return
    path = os.path.join(work, "numpy.ember")
    expected = {**EXPECTED, **EMBER_ONLY}

    # The whole file through the usual entry point.
    tensors = load_file(path)
    check(sorted(tensors) == sorted(expected), f"load_file keys {sorted(tensors)} != {sorted(expected)}")
    for key, want in expected.items():
        if key in tensors:
            check(same_bits(tensors[key], want), f"load_file['{key}'] = {tensors[key]!r}, expected {want!r}")

    # Lazily, one tensor at a time, and the metadata.
    with safe_open(path, framework="numpy") as f:
        for key, want in expected.items():
            got = f.get_tensor(key)
            check(same_bits(got, want), f"safe_open['{key}'] = {got!r}, expected {want!r}")
        metadata = f.metadata() or {}
    check(metadata.get("format") == "ember", f"__metadata__['format'] = {metadata.get('format')!r}")
    check("ember" in metadata, f"__metadata__ has no 'ember' document: {sorted(metadata)}")
    if "ember" in metadata:
        doc = json.loads(metadata["ember"])
        check(doc.get("schema") == "ember.checkpoint", f"schema = {doc.get('schema')!r}")
        check(isinstance(doc.get("version"), int) and doc["version"] >= 1, f"version = {doc.get('version')!r}")
        table = doc.get("tensors", {})
        check(sorted(table) == sorted(expected), f"document's tensor table {sorted(table)}")
        names = table.get("model/embed.weight", {}).get("names")
        check(names == ["model/embed.weight", "model/decoder.weight"], f"names of the tie = {names!r}")
        check(table.get("model/embed.weight", {}).get("requires_grad") is True, "tie lost requires_grad")
        root = doc.get("root", {})
        check(root.get("t") == "dict", f"root node = {str(root)[:80]}")
        keys = [item[0] for item in root.get("v", [])]
        check(keys == ["f32", "f64", "f16", "i64", "i32", "u8", "bool", "scalar", "empty", "transposed", "model",
                       "step"], f"root keys = {keys}")

    # bfloat16: numpy cannot hold it; the raw bytes come through deserialize.
    path = os.path.join(work, "bfloat16.ember")
    with open(path, "rb") as fh:
        entries = dict(safetensors.deserialize(fh.read()))
    check(list(entries) == ["bf16"], f"bfloat16.ember holds {list(entries)}")
    if "bf16" in entries:
        entry = entries["bf16"]
        check(entry["dtype"] == "BF16", f"bf16 dtype = {entry['dtype']}")
        check(list(entry["shape"]) == [4], f"bf16 shape = {entry['shape']}")
        check(bytes(entry["data"]) == BF16_BITS.tobytes(), f"bf16 bytes = {bytes(entry['data']).hex()}")
        as_f32 = (np.frombuffer(bytes(entry["data"]), dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        check(as_f32[0] == 1.0 and as_f32[1] == -2.5, f"bf16 values = {as_f32}")
    with safe_open(path, framework="numpy") as f:
        check(f.get_slice("bf16").get_dtype() == "BF16", "safe_open: bf16 dtype")
        check((f.metadata() or {}).get("format") == "ember", "bfloat16.ember: __metadata__['format']")


def write_bf16(path):
    data = np.ascontiguousarray(BF16_BITS)
    if hasattr(safetensors, "TensorSpec"):  # safetensors >= 0.8
        spec = safetensors.TensorSpec(dtype="bfloat16", shape=[4], data_ptr=data.ctypes.data, data_len=data.nbytes)
    else:
        spec = {"dtype": "BF16", "shape": [4], "data": data.tobytes()}
    safetensors.serialize_file({"bf16": spec}, path)


def python_to_ember(program, work):
    save_file(EXPECTED, os.path.join(work, "from_numpy.safetensors"),
              metadata={"writer": "safetensors.numpy", "note": "h\u00e9llo"})
    write_bf16(os.path.join(work, "bfloat16.safetensors"))
    check(run(program, "check", work) == 0, f"{program} check {work} failed")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("ember-to-python", "python-to-ember"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, program, work = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)  # nothing from an earlier run is read
    os.makedirs(work)
    print(f"safetensors {safetensors.__version__}, numpy {np.__version__}")
    (ember_to_python if mode == "ember-to-python" else python_to_ember)(program, work)
    if failures:
        print(f"{mode}: {len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print(f"{mode}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
