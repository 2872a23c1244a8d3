"""ember.save / ember.load as PyTorch scripts call them (a path or a file object, map_location,
weights_only), and ember.io.load_into, which restores what a state dict loses (requires_grad)."""
import io
import os
import shutil

import numpy as np
import pytest

import ember
from ember import nn

PT_FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "pt")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.body(x))


def same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return list(sa) == list(sb) and all(np.array_equal(sa[k].numpy(), sb[k].numpy()) for k in sa)


def test_state_dict_round_trips_through_a_path_and_a_copy_of_it(tmp_path):
    ember.manual_seed(0)
    model = Net()
    ember.save(model.state_dict(), tmp_path / "model.pth")
    shutil.copyfile(tmp_path / "model.pth", tmp_path / "best.pth")
    other = Net()
    assert not same_state(model, other)
    other.load_state_dict(ember.load(str(tmp_path / "best.pth")))
    assert same_state(model, other)


@pytest.mark.parametrize("size", [0, 1, 1000])
def test_a_checkpoint_round_trips_through_bytes_io_keeping_every_type(size):
    ember.manual_seed(1)
    obj = {"epoch": 3, "best": 0.25, "arch": "net", "pair": ("loss", ember.randn(size)),
           "steps": [1, 2], "none": None, 7: ember.arange(size)}
    buffer = io.BytesIO()
    buffer.write(b"header")  # the checkpoint goes where the file position is
    ember.save(obj, buffer)
    buffer.seek(len(b"header"))
    back = ember.load(buffer, map_location="cpu", weights_only=True)
    assert list(back) == list(obj)
    assert back["epoch"] == 3 and type(back["epoch"]) is int
    assert back["best"] == 0.25 and back["arch"] == "net" and back["none"] is None
    assert type(back["pair"]) is tuple and back["pair"][0] == "loss"
    assert np.array_equal(back["pair"][1].numpy(), obj["pair"][1].numpy())
    assert np.array_equal(back[7].numpy(), obj[7].numpy())


def test_an_open_file_works_as_f(tmp_path):
    model = Net()
    with open(tmp_path / "ckpt.pth.tar", "wb") as f:
        ember.save({"state_dict": model.state_dict(), "epoch": 1}, f)
    with open(tmp_path / "ckpt.pth.tar", "rb") as f:
        ckpt = ember.load(f)
    other = Net()
    other.load_state_dict(ckpt["state_dict"])
    assert same_state(model, other) and ckpt["epoch"] == 1


@pytest.mark.parametrize("where", ["cpu", "cpu:0", ember.device("cpu"), {"cuda:0": "cpu"},
                                   lambda storage, loc: storage])
def test_map_location_to_the_cpu_in_each_of_pytorchs_forms(tmp_path, where):
    ember.save({"w": ember.ones(2)}, tmp_path / "w.pt")
    assert ember.load(tmp_path / "w.pt", map_location=where)["w"].tolist() == [1.0, 1.0]


@pytest.mark.skipif(ember.cuda.device_count() > 1, reason="this machine has a cuda:1")
def test_map_location_to_a_device_that_is_not_there_is_an_error_naming_it(tmp_path):
    ember.save({"w": ember.ones(2)}, tmp_path / "w.pt")
    with pytest.raises(RuntimeError, match="no CUDA device: io::load: map_location on cuda:1"):
        ember.load(tmp_path / "w.pt", map_location="cuda:1")
    with pytest.raises(RuntimeError, match="sends tensors to several devices"):
        ember.load(tmp_path / "w.pt", map_location={"cuda:0": "cpu", "cuda:1": "cuda:1"})


def test_a_file_torch_saved_loads_through_ember_load():
    ckpt = ember.load(os.path.join(PT_FIXTURES, "tied.pt"), map_location="cpu", weights_only=True)
    assert list(ckpt["state"]) == ["embed.weight", "decoder.weight", "decoder.bias"]


def test_f_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="path or a binary file object, got int"):
        ember.save({}, 3)
    with pytest.raises(TypeError, match="path or a binary file object, got int"):
        ember.load(3)


def test_a_failed_save_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "ckpt.pth"
    ember.save({"epoch": 1, "w": ember.ones(3)}, path)
    with pytest.raises(TypeError):
        ember.save({"epoch": 2, "bad": {1, 2}}, path)  # a set cannot be saved
    with pytest.raises(TypeError):
        ember.save({"epoch": 2, "bad": {1, 2}}, io.BytesIO())
    back = ember.load(path)
    assert back["epoch"] == 1 and back["w"].tolist() == [1.0, 1.0, 1.0]


def test_load_into_restores_requires_grad_that_a_state_dict_loses(tmp_path):
    ember.manual_seed(2)
    model = Net()
    model.body[0].requires_grad_(False)  # a frozen first layer
    ember.save({"model": model, "epoch": 5}, tmp_path / "ckpt.ember")

    fresh = Net()
    fresh.load_state_dict(ember.load(tmp_path / "ckpt.ember")["model"])  # values only
    assert fresh.body[0].weight.requires_grad

    fresh = Net()
    result = ember.io.load_into(fresh, tmp_path / "ckpt.ember", key="model")
    assert not result.missing_keys and not result.unexpected_keys
    assert same_state(model, fresh)
    assert not fresh.body[0].weight.requires_grad and not fresh.body[0].bias.requires_grad
    assert fresh.head.weight.requires_grad


def test_load_into_from_a_file_object_and_from_a_saved_module():
    model = Net()
    model.head.bias.requires_grad_(False)
    buffer = io.BytesIO()
    ember.save({"model": model}, buffer)
    buffer.seek(0)
    fresh = Net()
    ember.io.load_into(fresh, buffer, key="model")
    assert same_state(model, fresh) and not fresh.head.bias.requires_grad
    # a module saved whole (its types built in): load_into takes its state
    seq = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
    seq[0].bias.requires_grad_(False)
    buffer = io.BytesIO()
    ember.save(seq, buffer)
    buffer.seek(0)
    again = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
    ember.io.load_into(again, buffer)
    assert same_state(seq, again) and not again[0].bias.requires_grad


def test_load_into_strict_reports_keys_and_changes_nothing(tmp_path):
    ember.save({"model": {"head.weight": ember.zeros(3, 8)}}, tmp_path / "part.ember")
    model = Net()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(RuntimeError, match="head.bias"):
        ember.io.load_into(model, tmp_path / "part.ember", key="model")
    assert all(np.array_equal(before[k].numpy(), v.numpy()) for k, v in model.state_dict().items())
    result = ember.io.load_into(model, tmp_path / "part.ember", strict=False, key="model")
    assert "head.bias" in result.missing_keys and not result.unexpected_keys
    assert model.head.weight.abs().sum().item() == 0


def test_load_into_names_a_missing_key_and_a_shape_mismatch(tmp_path):
    ember.save({"model": {"head.weight": ember.zeros(3, 9), "head.bias": ember.zeros(3)}},
               tmp_path / "bad.ember")
    with pytest.raises(RuntimeError, match="no entry 'model/nope'"):
        ember.io.load_into(Net(), tmp_path / "bad.ember", key="model/nope")
    with pytest.raises(RuntimeError, match=r"head.weight.*\[3, 9\].*\[3, 8\]"):
        ember.io.load_into(Net(), tmp_path / "bad.ember", strict=False, key="model")


def test_numpy_arrays_and_scalars_come_back_as_numpy_values(tmp_path):
    """PyTorch saves NumPy values (scripts keep metrics and data in their checkpoints); Ember's file
    holds no classes, so each is a tensor marked as NumPy's, and ember.load gives NumPy's type back."""
    obj = {"arr": np.arange(6, dtype=np.int32).reshape(2, 3), "T": np.arange(6.0).reshape(2, 3).T,
           "empty": np.zeros((0, 3), dtype=np.float16), "zero_dim": np.array(2.5),
           "f32": np.float32(1.5), "flag": np.bool_(True), "pair": ("name", np.ones(2)), "t": ember.ones(2)}
    ember.save(obj, tmp_path / "np.pt")
    back = ember.load(tmp_path / "np.pt", weights_only=False)
    for key in ("arr", "T", "empty", "zero_dim"):
        assert type(back[key]) is np.ndarray and back[key].dtype == obj[key].dtype, key
        np.testing.assert_array_equal(back[key], obj[key])
    assert back["zero_dim"].shape == ()
    assert type(back["f32"]) is np.float32 and back["f32"] == np.float32(1.5)
    assert type(back["flag"]) is np.bool_ and back["flag"]
    assert isinstance(back["pair"], tuple) and back["pair"][0] == "name" and type(back["pair"][1]) is np.ndarray
    assert isinstance(back["t"], ember.Tensor)  # tensors stay tensors
    back["arr"][0, 0] = 99  # its own memory
    assert ember.load(tmp_path / "np.pt")["arr"][0, 0] == 0
    with pytest.raises(TypeError, match=r"NumPy array at 'names' has dtype <U3"):
        ember.save({"names": np.array(["abc"])}, tmp_path / "np.pt")
    assert ember.load(tmp_path / "np.pt")["arr"].dtype == np.int32  # the failed save left the file whole
