"""ember.data from Python: DataLoader batching, drop_last, seeded shuffling, state_dict resuming
mid-epoch and at an epoch's end (also into the loader it came from), errors; read_idx and
FashionMNIST on the committed fixture (the first 100 test samples, tests/fixtures/data)."""
import gzip
import os
import struct

import numpy as np
import pytest

import ember
from ember.data import DataLoader, FashionMNIST, read_idx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "data")


def numbered(n):
    """inputs[i] = [2i, 2i + 1] (float32 [n, 2]), targets[i] = i (int64 [n])."""
    return ember.arange(2 * n, dtype=ember.float32).reshape(n, 2), ember.arange(n)


def epoch(loader):
    """The targets of each batch of one `for ... in loader`."""
    return [y.tolist() for _, y in loader]


def test_batches_in_order_with_short_last_batch():
    x, y = numbered(10)
    loader = DataLoader(x, y, batch_size=4)
    assert len(loader) == loader.num_batches == 3 and loader.num_samples == 10
    batches = list(loader)
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    first_x, first_y = batches[0]
    assert first_x.dtype == ember.float32 and first_x.shape == (4, 2)
    assert first_x.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert first_y.dtype == ember.int64
    assert loader.position == 3 and loader.next() is None
    assert epoch(loader) == epoch(loader)  # each iteration is a new epoch, same order unshuffled


def test_drop_last_leaves_out_the_short_batch():
    x, y = numbered(10)
    loader = DataLoader(x, y, batch_size=4, drop_last=True)
    assert len(loader) == 2
    assert epoch(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(DataLoader(x, y, batch_size=5, drop_last=True)) == 2


def test_shuffle_is_a_seeded_permutation_new_every_epoch():
    x, y = numbered(50)
    a = DataLoader(x, y, batch_size=8, shuffle=True, seed=3)
    seen = []
    for inputs, targets in a:
        np.testing.assert_array_equal(inputs.numpy()[:, 0], 2 * targets.numpy())  # rows stay paired
        seen += targets.tolist()
    assert sorted(seen) == list(range(50)) and seen != list(range(50))
    b = DataLoader(x, y, batch_size=8, shuffle=True, seed=3)
    b0, b1 = epoch(b), epoch(b)
    a2 = DataLoader(x, y, batch_size=8, shuffle=True, seed=3)
    assert epoch(a2) == b0 and epoch(a2) == b1  # same seed, same orders
    assert b0 != b1  # a new order every epoch
    assert epoch(DataLoader(x, y, batch_size=8, shuffle=True, seed=4)) != b0


def test_state_dict_mid_epoch_resumes_the_same_batches(tmp_path):
    x, y = numbered(37)
    reference = DataLoader(x, y, batch_size=5, shuffle=True, seed=11)
    expected = [epoch(reference) for _ in range(3)]

    first = DataLoader(x, y, batch_size=5, shuffle=True, seed=11)
    assert epoch(first) == expected[0]
    it = iter(first)
    for _ in range(3):
        next(it)
    state = first.state_dict()
    assert state["position"] == 3 and state["batch_size"] == 5 and state["num_samples"] == 37
    assert state["generator"]["type"] == "Generator"

    # Through a file, into a loader seeded differently: the rest of epoch 2, then epoch 3.
    ember.io.save({"loader": state}, tmp_path / "ckpt.ember")
    resumed = DataLoader(x, y, batch_size=5, shuffle=True, seed=999)
    resumed.load_state_dict(ember.io.load(tmp_path / "ckpt.ember")["loader"])
    assert resumed.position == 3 and resumed.state_dict() == state
    assert epoch(resumed) == expected[1][3:]
    assert epoch(resumed) == expected[2]

    # Into the loader the state came from, which has gone on meanwhile.
    assert [b[1].tolist() for b in it] == expected[1][3:]
    epoch(first)
    generator = first.generator  # a handle to the loader's generator: stays valid, takes the state
    first.load_state_dict(state)
    assert generator.get_state() == (11, int(state["generator"]["counter"]))
    assert epoch(first) == expected[1][3:] and epoch(first) == expected[2]
    # ... and at the position it is at already (the generator holds the very state saved).
    again = DataLoader(x, y, batch_size=5, shuffle=True, seed=11)
    epoch(again)
    it = iter(again)
    next(it)
    again.load_state_dict(again.state_dict())
    assert epoch(again) == expected[1][1:] and epoch(again) == expected[2]


def test_state_dict_at_an_epoch_end_resumes_with_the_next_epoch():
    x, y = numbered(12)
    reference = DataLoader(x, y, batch_size=4, shuffle=True, seed=5)
    e0, e1 = epoch(reference), epoch(reference)
    first = DataLoader(x, y, batch_size=4, shuffle=True, seed=5)
    assert epoch(first) == e0
    resumed = DataLoader(x, y, batch_size=4, shuffle=True, seed=5)
    resumed.load_state_dict(first.state_dict())  # position 3 of 3
    assert epoch(resumed) == []  # the saved epoch was over
    assert epoch(resumed) == e1


def test_start_epoch_and_next_without_iteration():
    x, y = numbered(6)
    loader = DataLoader(x, y, batch_size=2)
    assert loader.order is None
    loader.start_epoch()
    assert loader.next()[1].tolist() == [0, 1]
    loader.resume_epoch(2)
    assert loader.next()[1].tolist() == [4, 5] and loader.next() is None
    assert loader.order.tolist() == list(range(6))
    with pytest.raises(IndexError, match=r"batch 4 is outside \[0, 3\]"):
        loader.resume_epoch(4)


def test_bad_inputs_and_states_are_errors():
    x, y = numbered(10)
    with pytest.raises(ValueError, match=r"inputs have 10 samples \[10, 2\] but targets have 3 \[3\]"):
        DataLoader(x, ember.arange(3))
    with pytest.raises(ValueError, match="batch_size must be >= 1, got 0"):
        DataLoader(x, y, batch_size=0)
    with pytest.raises(ValueError, match="no samples"):
        DataLoader(ember.zeros(0, 2), ember.zeros(0))
    with pytest.raises(TypeError):
        DataLoader([1, 2], y)

    state = DataLoader(x, y, batch_size=4, shuffle=True).state_dict()
    loader = DataLoader(x, y, batch_size=5, shuffle=True)
    with pytest.raises(ValueError, match="the state is of a loader with batch_size 4, this one has 5"):
        loader.load_state_dict(state)
    other = DataLoader(x, y, batch_size=4, shuffle=True)
    with pytest.raises(KeyError, match="no 'position' in the state"):
        other.load_state_dict({k: v for k, v in state.items() if k != "position"})
    with pytest.raises(ValueError, match=r"position 4 is outside \[0, 3\]"):
        other.load_state_dict({**state, "position": 4})
    with pytest.raises(TypeError, match="'position' must be an int"):
        other.load_state_dict({**state, "position": 1.0})
    with pytest.raises(ValueError, match="'seed' is \"x\", expected an unsigned 64-bit integer"):
        other.load_state_dict({**state, "generator": {"type": "Generator", "seed": "x", "counter": "0"}})
    # Nothing changed by the refused states: the loader still runs its own first epoch.
    assert epoch(other) == epoch(DataLoader(x, y, batch_size=4, shuffle=True))


def test_fashion_mnist_reads_the_fixture():
    test = FashionMNIST(FIXTURES, train=False)
    assert len(test) == 100
    assert test.images.dtype == ember.uint8 and test.images.shape == (100, 28, 28)
    assert test.labels.dtype == ember.int64 and test.labels.shape == (100,)
    # The first labels of the t10k split, as the C++ test (tests/data/fashion_mnist_test.cpp).
    assert test.labels[:12].tolist() == [9, 2, 1, 1, 6, 1, 4, 6, 5, 7, 4, 5]
    assert test.labels.sum().item() == 428
    assert FashionMNIST.classes[test.labels[0].item()] == "Ankle boot"
    assert len(FashionMNIST.classes) == FashionMNIST.num_classes == 10
    image, label = test[0]
    assert image.shape == (28, 28) and label == 9
    loader = DataLoader(test.images, test.labels, batch_size=32)
    assert [len(b) for _, b in loader] == [32, 32, 32, 4]


def test_fashion_mnist_missing_files_name_the_path_and_the_package(tmp_path):
    with pytest.raises(FileNotFoundError, match="dataset-fashion-mnist") as info:
        FashionMNIST(tmp_path, train=True)
    assert str(tmp_path / "train-images-idx3-ubyte.gz") in str(info.value)


def write_idx(path, type_code, dims, payload, compress=False):
    data = bytes([0, 0, type_code, len(dims)]) + struct.pack(">" + "I" * len(dims), *dims) + payload
    with (gzip.open(path, "wb") if compress else open(path, "wb")) as f:
        f.write(data)


def test_read_idx_reads_plain_and_gzipped_files_big_endian(tmp_path):
    write_idx(tmp_path / "a.idx", 0x0C, [2, 2], struct.pack(">4i", 1, -2, 3, 70000))
    t = read_idx(tmp_path / "a.idx")
    assert t.dtype == ember.int32 and t.tolist() == [[1, -2], [3, 70000]]
    write_idx(tmp_path / "b.idx.gz", 0x0D, [3], struct.pack(">3f", 0.5, -1.0, 2.25), compress=True)
    assert read_idx(str(tmp_path / "b.idx.gz")).tolist() == [0.5, -1.0, 2.25]
    fixture = read_idx(os.path.join(FIXTURES, "t10k-labels-idx1-ubyte.gz"))
    assert fixture.dtype == ember.uint8 and fixture.shape == (100,)


def test_read_idx_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.idx"
    bad.write_bytes(b"\x01\x00\x08\x01\x00\x00\x00\x01\x05")
    with pytest.raises(ValueError, match="bad magic number") as info:
        read_idx(bad)
    assert str(bad) in str(info.value)
    write_idx(bad, 0x08, [4], b"\x01\x02")
    with pytest.raises(ValueError, match="is truncated"):
        read_idx(bad)
    write_idx(bad, 0x09, [1], b"\x01")
    with pytest.raises(ValueError, match="unsupported element type 0x09"):
        read_idx(bad)
    with pytest.raises(FileNotFoundError, match="cannot open .*missing.idx"):
        read_idx(tmp_path / "missing.idx")
