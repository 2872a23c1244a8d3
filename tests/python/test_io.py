"""ember.io from Python: nested containers round-trip with their types, tensors by name, modules,
optimizers and schedulers inside checkpoints, CheckpointManager, and a model trained here and
reloaded in another process giving identical outputs."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember import nn, optim


def roundtrip(obj, tmp_path):
    path = tmp_path / "obj.ember"
    ember.io.save(obj, path)
    return ember.io.load(path)


def same_structure(a, b):
    """Equal values and exactly the same types at every node (True != 1, (1,) != [1])."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same_structure(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same_structure(x, y)
    elif isinstance(a, ember.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.numpy(force=True), b.numpy(force=True))
    else:
        assert a == b


def test_every_container_type_round_trips_with_types_kept(tmp_path):
    obj = {
        "none": None, "true": True, "false": False, "int": 3, "neg": -(2 ** 63), "big": 2 ** 63 - 1,
        "float": 0.1, "whole_float": 2.0, "str": "héllo", "empty_str": "",
        "tensor": ember.arange(6, dtype=ember.float64).reshape(2, 3),
        "ints": ember.tensor([1, 2, 3]), "bools": ember.tensor([True, False]),
        "tuple": ("best", 1, 2.5, None), "nested_tuple": ((1, 2), [3, (4,)]),
        "list": [1, [2, [3, {"deep": (True,)}]]], "empty": {"list": [], "tuple": (), "dict": {}},
        "dict_order": {"z": 1, "a": 2, "m": 3},
    }
    back = roundtrip(obj, tmp_path)
    same_structure(obj, back)
    assert type(back["int"]) is int and type(back["whole_float"]) is float and back["true"] is True
    same_structure(roundtrip([1, (2,)], tmp_path), [1, (2,)])
    same_structure(roundtrip((), tmp_path), ())
    assert roundtrip(None, tmp_path) is None


def test_int_keys_come_back_as_ints_beside_str_keys(tmp_path):
    # A torch optimizer's state is {0: {...}, 1: {...}}; 0 and "0" are different keys.
    t = ember.arange(3, dtype=ember.float32)
    obj = {"state": {0: {"exp_avg": t}, "0": "str zero", -(2 ** 63): None, 2 ** 63 - 1: [t]}}
    back = roundtrip(obj, tmp_path)
    same_structure(obj, back)
    assert [type(k) for k in back["state"]] == [int, str, int, int]
    assert schema_version(tmp_path / "obj.ember") == 2
    ember.io.save({"a": 1}, tmp_path / "plain.ember")
    assert schema_version(tmp_path / "plain.ember") == 1, "no int key: older Ember reads it"


def schema_version(path):
    """The "version" of Ember's document in a checkpoint's safetensors header (io/FORMAT.md)."""
    raw = open(path, "rb").read()
    header = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    return json.loads(header["__metadata__"]["ember"])["version"]


def test_unsavable_objects_and_keys_are_type_errors(tmp_path):
    with pytest.raises(TypeError, match=r"dict keys must be str or int, got float key 1.5 at the root"):
        ember.io.save({1.5: 2}, tmp_path / "x.ember")
    with pytest.raises(TypeError, match=r"dict keys must be str or int, got bool key True"):
        ember.io.save({True: 2}, tmp_path / "x.ember")
    with pytest.raises(ValueError, match=r"the dict key 18446744073709551616 at 'a' does not fit in 64 bits"):
        ember.io.save({"a": {2 ** 64: 2}}, tmp_path / "x.ember")
    with pytest.raises(TypeError, match=r"can't save an object of type set at 'a/0'"):
        ember.io.save({"a": [{1, 2}]}, tmp_path / "x.ember")
    with pytest.raises(ValueError, match="64 bits"):
        ember.io.save(2 ** 64, tmp_path / "x.ember")
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="deeper"):
        ember.io.save(loop, tmp_path / "x.ember")


def test_tied_tensor_is_stored_once_and_load_tensor(tmp_path):
    t = ember.randn(3, 2)
    path = tmp_path / "tied.ember"
    ember.io.save({"a": t, "pair": (1, t), "other": ember.ones(2)}, path)
    back = ember.io.load(path)
    assert back["a"]._is_same(back["pair"][1])
    np.testing.assert_array_equal(ember.io.load_tensor(path, "pair/1").numpy(), t.numpy())
    np.testing.assert_array_equal(ember.io.load_tensor(str(path), "other").numpy(), [1.0, 1.0])
    with pytest.raises(KeyError):
        ember.io.load_tensor(path, "missing")
    with pytest.raises(FileNotFoundError, match="does-not-exist.ember"):
        ember.io.load(tmp_path / "does-not-exist.ember")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 8), nn.Tanh())
        self.head = nn.Linear(8, 2)
        self.register_buffer("offset", ember.zeros(2))

    def forward(self, x):
        return self.head(self.body(x)) + self.offset


def test_checkpoint_of_state_dicts_and_of_the_objects_themselves(tmp_path):
    ember.manual_seed(0)
    model = Net()
    opt = optim.Adam(model.named_parameters(), lr=0.01)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    x = ember.randn(4, 3)
    model(x).sum().backward()
    opt.step()
    sched.step()

    by_state = roundtrip({"model": model.state_dict(), "optimizer": opt.state_dict(),
                          "scheduler": sched.state_dict(), "epoch": 3}, tmp_path)
    by_object = roundtrip({"model": model, "optimizer": opt, "scheduler": sched, "epoch": 3}, tmp_path)
    for ckpt in (by_state, by_object):
        assert ckpt["epoch"] == 3 and list(ckpt["model"]) == list(model.state_dict())
        fresh = Net()
        assert repr(fresh.load_state_dict(ckpt["model"])) == "<All keys matched successfully>"
        np.testing.assert_array_equal(fresh(x).numpy(force=True), model(x).numpy(force=True))
        opt2 = optim.Adam(fresh.named_parameters(), lr=0.01)
        sched2 = optim.lr_scheduler.StepLR(opt2, step_size=1, gamma=0.5)
        opt2.load_state_dict(ckpt["optimizer"])
        sched2.load_state_dict(ckpt["scheduler"])
        assert opt2.param_groups[0]["lr"] == pytest.approx(0.005) and sched2.last_epoch == 1
        assert opt2.state["head.weight"]["step"].item() == 1


def test_generator_state_in_checkpoint(tmp_path):
    g = ember.Generator(5)
    ember.rand(3, generator=g)
    back = roundtrip({"rng": g}, tmp_path)
    assert back["rng"]["type"] == "Generator"
    restored = ember.Generator(99)
    restored.load_state_dict(back["rng"])  # as a module or optimizer takes its saved tree
    assert restored.get_state() == g.get_state() and restored.state_dict() == g.state_dict()
    assert ember.rand(3, generator=restored).tolist() == ember.rand(3, generator=g).tolist()
    with pytest.raises(ValueError):
        restored.load_state_dict({"type": "Generator", "seed": "x"})


def test_checkpoint_manager_keeps_last_and_restores(tmp_path):
    manager = ember.io.CheckpointManager(tmp_path / "run", keep_last=2)
    assert manager.latest() is None and manager.restore() is None
    for step in (10, 20, 30):
        path = manager.save({"step": step, "w": ember.full((2,), float(step)), "meta": ("s", step)}, step)
        assert os.path.exists(path)
    assert [c.step for c in manager.checkpoints()] == [20, 30]
    assert manager.latest().step == 30
    restored = manager.restore()
    assert restored.step == 30 and restored.state["meta"] == ("s", 30)
    assert restored.state["w"].tolist() == [30.0, 30.0]

    # A damaged newest checkpoint is skipped with a Python warning.
    with open(manager.path_for(30), "r+b") as f:
        f.seek(-4, os.SEEK_END)
        f.write(b"\xff\xff\xff\xff")
    with pytest.warns(UserWarning, match="ckpt-"):
        restored = manager.restore()
    assert restored.step == 20


def test_checkpoint_manager_save_async_writes_the_state_as_it_was(tmp_path):
    manager = ember.io.CheckpointManager(tmp_path / "run", keep_last=2)
    model = nn.Linear(300, 200)
    expected = {k: v.clone() for k, v in model.state_dict().items()}
    for step in (1, 2, 3):
        path = manager.save_async({"model": model.state_dict(), "step": step}, step)
        with ember.no_grad():  # training goes on at once
            for p in model.parameters():
                p.add_(1.0)
        if step == 1:
            # what step 3 will hold: two more add_(1.0) (not + 2.0, which rounds differently)
            expected = {k: (v + 1.0) + 1.0 for k, v in expected.items()}
    manager.wait()
    assert path == manager.path_for(3)
    assert [c.step for c in manager.checkpoints()] == [2, 3]
    restored = manager.restore()
    assert restored.step == 3
    for k, v in expected.items():
        assert ember.equal(restored.state["model"][k], v), k
    # a failed background write raises from wait(), naming the file
    other = ember.io.CheckpointManager(tmp_path / "other", keep_last=2)
    os.rmdir(tmp_path / "other")
    (tmp_path / "other").write_text("a file where the directory was")
    other.save_async({"x": ember.ones(3)}, 4)
    with pytest.raises(Exception, match="ckpt-000000000004"):
        other.wait()
    other.wait()  # reported once
    assert [c.step for c in manager.checkpoints()] == [2, 3]


def test_save_module_and_load_module_for_builtin_layers(tmp_path):
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    path = tmp_path / "seq.ember"
    ember.io.save_module(seq, str(path))
    back = ember.io.load_module(str(path))
    assert isinstance(back, nn.Sequential) and isinstance(back[0], nn.Linear)
    x = ember.randn(2, 3)
    np.testing.assert_array_equal(back(x).numpy(force=True), seq(x).numpy(force=True))


# A fresh interpreter that knows only the class (imported from this file), not the trained object.
SUBPROCESS_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import ember
    sys.path.insert(0, sys.argv[3])
    from test_io import Net

    ckpt = ember.io.load(sys.argv[1])
    model = Net()
    result = model.load_state_dict(ckpt["model"])
    assert not result.missing_keys and not result.unexpected_keys, result
    model.eval()
    with ember.no_grad():
        out = model(ckpt["inputs"])
    np.save(sys.argv[2], out.numpy())
    print(ckpt["epoch"], type(ckpt["meta"]).__name__)
""")


def test_trained_model_reloads_in_a_subprocess_with_identical_outputs(tmp_path):
    ember.manual_seed(3)
    model = Net()
    opt = optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
    x = ember.randn(32, 3)
    y = ember.randn(32, 2)
    first = None
    for _ in range(30):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < first
    model.offset = ember.full((2,), 0.25)  # a buffer: saved with the model
    model.eval()
    with ember.no_grad():
        expected = model(x).numpy()

    ckpt, out = tmp_path / "trained.ember", tmp_path / "out.npy"
    ember.io.save({"model": model.state_dict(), "inputs": x, "epoch": 30, "meta": ("sgd", 0.1)}, ckpt)
    script = tmp_path / "reload.py"
    script.write_text(SUBPROCESS_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, str(script), str(ckpt), str(out), here], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["30", "tuple"]
    np.testing.assert_array_equal(np.load(out), expected)


PT_FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "pt")


def test_pytorch_checkpoint_loads_without_torch_and_ties_stay_shared():
    assert "torch" not in sys.modules
    ckpt = ember.io.load(os.path.join(PT_FIXTURES, "tied.pt"))
    state = ckpt["state"]
    assert list(state.keys()) == ["embed.weight", "decoder.weight", "decoder.bias"]
    expected = ember.io.load(os.path.join(PT_FIXTURES, "tied.expected.safetensors"))
    for key in state:
        assert np.array_equal(state[key].numpy(), expected["state/" + key].numpy()), key
    # One storage under two names: writing through one name shows through the other.
    embed, decoder = state["embed.weight"], state["decoder.weight"]
    with ember.no_grad():
        embed[0, 0] = 123.0
    assert decoder[0, 0].item() == 123.0


def test_pytorch_pickle_with_a_forbidden_global_is_refused(tmp_path):
    bad = os.path.join(os.path.dirname(__file__), "..", "fixtures", "io", "malformed")
    with pytest.raises(ValueError, match="refers to the global 'os.system'"):
        ember.io.load(os.path.join(bad, "pt_global_os_system.pt"))


def test_int8_and_int16_round_trip_bit_for_bit(tmp_path):
    i8 = ember.tensor([-128, 127, -1, 0], dtype=ember.int8)
    i16 = ember.from_numpy(np.array([[-(2 ** 15), 2 ** 15 - 1], [7, -7]], dtype=np.int16)).t()
    back = roundtrip({"i8": i8, "i16": i16, "short": i16.short(), "char": ember.arange(4).char()}, tmp_path)
    assert back["i8"].dtype == ember.int8 and back["i8"].tolist() == [-128, 127, -1, 0]
    assert back["i16"].dtype == ember.int16 and back["i16"].tolist() == [[-32768, 7], [32767, -7]]
    assert back["char"].dtype == ember.int8 and back["short"].dtype == ember.short == ember.int16
    with pytest.raises(TypeError, match="int8 is a storage type here"):
        back["i8"] + 1
    assert (back["i8"].int() + 1).tolist() == [-127, 128, 0, 1]
