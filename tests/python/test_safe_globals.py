"""ember.serialization's weights_only allow-list (torch.serialization's add_safe_globals,
safe_globals, get_unsafe_globals_in_checkpoint) on a checkpoint torch.save wrote with Python
objects beside its tensors (tests/fixtures/pt/objects.pt, make_pt_fixtures.py): refused by name
until allowed, then built as pickle builds them; nothing in the file runs either way."""
import argparse
import datetime
import fractions
import http
import io
import os
import pickle

import pytest

import ember
from ember import serialization

OBJECTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "pt", "objects.pt")
ALL = [argparse.Namespace, datetime.timedelta, http.HTTPStatus, fractions.Fraction]


@pytest.fixture(autouse=True)
def no_allowed_globals():
    serialization.clear_safe_globals()
    yield
    serialization.clear_safe_globals()


def check_objects(ckpt):
    args = ckpt["args"]
    assert type(args) is argparse.Namespace
    assert (args.lr, args.epochs, args.arch, args.milestones) == (0.1, 3, "resnet18", [30, 60])
    assert ember.equal(args.init, ember.arange(6, dtype=ember.float32).reshape(2, 3))
    assert args.init is ckpt["model"]["w"]  # one tensor in the pickle, one here
    assert ckpt["elapsed"] == datetime.timedelta(days=1, seconds=2, microseconds=3)
    assert ckpt["status"] is http.HTTPStatus.OK
    assert ckpt["ratio"] == fractions.Fraction(1, 3)
    assert ckpt["kind"] is argparse.Namespace


def test_objects_are_refused_by_name_until_allowed():
    with pytest.raises(pickle.UnpicklingError, match=r"'argparse\.Namespace'.*add_safe_globals") as e:
        ember.load(OBJECTS)
    assert isinstance(e.value, ValueError)
    assert serialization.get_unsafe_globals_in_checkpoint(OBJECTS) == [
        "argparse.Namespace", "datetime.timedelta", "http.HTTPStatus", "fractions.Fraction"]
    serialization.add_safe_globals([argparse.Namespace])
    assert serialization.get_unsafe_globals_in_checkpoint(OBJECTS) == [
        "datetime.timedelta", "http.HTTPStatus", "fractions.Fraction"]
    with pytest.raises(pickle.UnpicklingError, match=r"datetime\.timedelta"):
        ember.load(OBJECTS, weights_only=True)


def test_safe_globals_allows_inside_the_block_only():
    with serialization.safe_globals(ALL):
        check_objects(ember.load(OBJECTS))
        assert serialization.get_safe_globals() == ALL
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        ember.load(OBJECTS)


def test_add_safe_globals_lasts_until_cleared_and_reads_file_objects():
    serialization.add_safe_globals(ALL)
    check_objects(ember.load(OBJECTS))
    with open(OBJECTS, "rb") as f:
        check_objects(ember.load(io.BytesIO(f.read())))
    serialization.clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError):
        ember.load(OBJECTS)


def test_a_pair_allows_an_object_under_a_name():
    class Args:
        pass

    serialization.add_safe_globals([(Args, "argparse.Namespace"), *ALL[1:]])
    ckpt = ember.load(OBJECTS)
    assert type(ckpt["args"]) is Args and ckpt["args"].arch == "resnet18"
    with pytest.raises(TypeError, match="module.name"):
        serialization.add_safe_globals([(Args,)])
    with pytest.raises(TypeError, match="__module__"):
        serialization.add_safe_globals([3])


def test_weights_only_false_trusts_the_file():
    check_objects(ember.load(OBJECTS, weights_only=False))


def test_tensors_only_files_need_nothing_allowed(tmp_path):
    path = tmp_path / "plain.pt"
    ember.save({"w": ember.ones(2), "epoch": 3}, path)
    assert serialization.get_unsafe_globals_in_checkpoint(path) == []
    assert ember.load(path)["epoch"] == 3


def test_what_torchs_weights_only_loader_allows_by_itself():
    import collections
    path = os.path.join(os.path.dirname(OBJECTS), "builtins.pt")
    assert serialization.get_unsafe_globals_in_checkpoint(path) == []
    for weights_only in (None, True, False):
        ckpt = ember.load(path, weights_only=weights_only)
        assert ckpt["device"] == ember.device("cpu") and ckpt["gpu"] == ember.device("cuda", 1)
        assert ckpt["tags"] == {"a", "b"} and ckpt["z"] == complex(1.5, -2.0)
        assert ckpt["counts"] == collections.Counter("abca") and type(ckpt["counts"]) is collections.Counter
        assert ckpt["raw"] == b"\x00\xffok"


def test_numpy_values_load_once_allowed():
    import numpy as np
    path = os.path.join(os.path.dirname(OBJECTS), "numpy.pt")
    with pytest.raises(pickle.UnpicklingError, match="numpy"):
        ember.load(path)
    allowed = [np._core.multiarray.scalar, np.dtype, np._core.multiarray._reconstruct, np.ndarray]
    assert serialization.get_unsafe_globals_in_checkpoint(path) == [
        "numpy._core.multiarray.scalar", "numpy.dtype", "numpy._core.multiarray._reconstruct", "numpy.ndarray"]
    with serialization.safe_globals(allowed):
        ckpt = ember.load(path)
    assert type(ckpt["best_acc"]) is np.float64 and ckpt["best_acc"] == 0.75
    np.testing.assert_array_equal(ckpt["stats"], np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ckpt["stats"].dtype == np.float32
    assert ember.equal(ckpt["w"], ember.ones(2))


def test_an_ember_file_is_data_whatever_its_dicts_hold(tmp_path):
    # A dict shaped like the reader's description of an object, saved in Ember's own format: it
    # comes back as the dict it is, with weights_only=False too, and nothing is called.
    marker = tmp_path / "ran"
    tree = {"x": {"__ember_global__": "os.system", "call": "reduce", "args": (f"touch {marker}",)}}
    path = tmp_path / "data.ember"
    ember.save(tree, path)
    for weights_only in (None, True, False):
        assert ember.load(path, weights_only=weights_only) == tree
    assert not marker.exists()
    assert serialization.get_unsafe_globals_in_checkpoint(path) == []
