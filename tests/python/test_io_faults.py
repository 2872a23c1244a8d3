"""Checkpoints that cannot lose a run, through the Python API (issue 26): the manager never prunes
what it just wrote nor counts damaged files, loads own their memory (no SIGBUS), every one-byte
edit is refused naming the file, saves refuse odd targets, killed saves leave nothing behind,
bad headers raise clean errors, and failed calls are OSErrors with errno and filename set."""
import errno
import os
import signal
import subprocess
import sys
import textwrap
import warnings

import pytest

import ember


def damage(path, from_end=5):
    """Changes one byte near the end of the file (inside the last tensor's data)."""
    with open(path, "r+b") as f:
        f.seek(-from_end, os.SEEK_END)
        b = f.read(1)
        f.seek(-from_end, os.SEEK_END)
        f.write(bytes([b[0] ^ 0x5A]))


def state(step):
    return {"w": ember.full((1000,), float(step)), "step": step}


def run_python(code, timeout=60):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout)


# ---- 1. the manager

def test_manager_never_deletes_the_checkpoint_it_just_wrote(tmp_path):
    m = ember.io.CheckpointManager(tmp_path / "run", keep_last=2)
    m.save(state(5), 5)
    m.save(state(6), 6)
    damage(m.path_for(5))
    damage(m.path_for(6))
    with pytest.raises(RuntimeError, match=r"holds 2 checkpoints but none loads") as e:
        m.restore()
    assert m.path_for(5) in str(e.value) and m.path_for(6) in str(e.value)
    with pytest.warns(UserWarning, match="Starting over from scratch"):
        assert m.restore(allow_fresh_start=True) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in (1, 2, 3):
            path = m.save(state(step), step)
            assert os.path.exists(path)
        assert [c.step for c in m.checkpoints()] == [2, 3, 5, 6]
        r = m.restore()
    assert r.step == 3 and r.state["step"] == 3


def test_no_checkpoint_yet_is_none_and_load_latest_creates_nothing(tmp_path):
    assert ember.io.load_latest(tmp_path / "absent") is None
    assert not (tmp_path / "absent").exists()
    m = ember.io.CheckpointManager(tmp_path / "run", keep_last=1)
    assert m.restore() is None and m.latest() is None
    m.save(state(4), 4)
    r = ember.io.load_latest(tmp_path / "run")
    assert (r.step, r.state["step"]) == (4, 4)


# ---- 2. loads own their memory

@pytest.mark.parametrize("mmap", [False, True])
def test_truncating_or_replacing_a_loaded_file_neither_crashes_nor_changes_values(tmp_path, mmap):
    code = f"""
        import os, shutil, ember
        p, q = {str(tmp_path / 'r.ember')!r}, {str(tmp_path / 'other.ember')!r}
        ember.save({{"w": ember.ones(1 << 20)}}, p)
        ember.save({{"w": ember.full((1 << 20,), 2.0)}}, q)
        w = ember.load(p, mmap={mmap})["w"]
        t = ember.io.load_tensor(p, "w", mmap={mmap})
        shutil.copyfile(q, p)      # cp other.ember r.ember: rewritten in place
        assert w.sum().item() == 1 << 20, w.sum().item()
        os.truncate(p, 0)
        print(w.sum().item(), t.sum().item())
    """
    r = run_python(code)
    assert r.returncode == 0, (r.returncode, r.stderr)  # -7 would be SIGBUS
    assert r.stdout.split() == ["1048576.0", "1048576.0"]


# ---- 5. one-byte edits of the header are refused

@pytest.mark.parametrize("old,new", [(b'\\"v\\":3', b'\\"v\\":7'), (b"0.001", b"0.009"),
                                     (b'"exp_avg":{"dtype":"F32"', b'"exp_avg":{"dtype":"I32"'),
                                     (b"exp_avg", b"expQavg")])
def test_one_byte_edits_of_the_header_are_refused(tmp_path, old, new):
    path = tmp_path / "ckpt.ember"
    ember.save({"epoch": 3, "lr": 0.001, "exp_avg": ember.zeros(4)}, path)
    data = path.read_bytes()
    assert data.count(old) >= 1
    path.write_bytes(data.replace(old, new, 1))
    with pytest.raises(ValueError, match="damaged") as e:
        ember.load(path)
    assert str(path) in str(e.value)


# ---- 6. paths

def test_save_refuses_a_directory_a_fifo_and_a_device(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "inside").write_text("kept")
    with pytest.raises(IsADirectoryError) as e:
        ember.save(ember.ones(2), d, durable=False)
    assert e.value.errno == errno.EISDIR and e.value.filename == str(d)
    assert (d / "inside").read_text() == "kept"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="it is a FIFO"):
        ember.save(ember.ones(2), fifo)
    if os.path.exists("/dev/null"):
        with pytest.raises(OSError, match="it is a device"):
            ember.save(ember.ones(2), "/dev/null")
        assert not os.path.isfile("/dev/null")
    assert not [p for p in os.listdir(tmp_path) if ".tmp." in p]


def test_save_writes_through_a_symlink(tmp_path):
    (tmp_path / "store").mkdir()
    ember.save(ember.ones(2), tmp_path / "store" / "v2.ember")
    os.symlink("store/v2.ember", tmp_path / "latest.ember")
    ember.save(ember.zeros(2), tmp_path / "latest.ember")
    assert os.path.islink(tmp_path / "latest.ember")
    assert ember.load(tmp_path / "store" / "v2.ember").tolist() == [0.0, 0.0]


def test_loading_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = run_python(f"""
        import ember
        try:
            ember.load({str(fifo)!r})
        except OSError as e:
            print(type(e).__name__, e)
    """, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "it is a FIFO" in r.stdout


# ---- 7. a killed save leaves nothing the next save does not remove

def test_a_killed_save_leaves_a_temporary_that_the_next_save_removes(tmp_path):
    path = tmp_path / "big.ember"
    r = run_python(f"""
        import ember
        ember._C.io._set_fault_plan(3, "kill", only="write")   # SIGKILL at the third write
        ember.save({{"a": ember.ones(3 << 20), "b": ember.ones(3 << 20)}}, {str(path)!r})
    """)
    assert r.returncode == -signal.SIGKILL, r.stderr
    left = [p for p in os.listdir(tmp_path) if ".tmp." in p]
    assert len(left) == 1 and left[0].startswith(".big.ember.tmp.")
    ember.save(ember.ones(2), path)
    assert not [p for p in os.listdir(tmp_path) if ".tmp." in p]


# ---- 8. a header that is not UTF-8

def test_a_header_with_invalid_utf8_names_the_file_and_the_manager_warns(tmp_path):
    m = ember.io.CheckpointManager(tmp_path / "run", keep_last=3)
    m.save(state(1), 1)
    m.save(state(2), 2)
    data = open(m.path_for(2), "rb").read()
    at = data.index(b'"w":{"dtype"')  # the tensor's key in the safetensors table
    with open(m.path_for(2), "wb") as f:
        f.write(data[:at + 1] + b"\xff" + data[at + 2:])
    with pytest.raises(ValueError) as e:
        ember.load(m.path_for(2))
    assert m.path_for(2) in str(e.value)
    with pytest.warns(UserWarning, match=r"skipping checkpoint .*ckpt-000000000002"):
        assert m.restore().step == 1


# ---- failed calls are OSErrors with errno and filename

@pytest.mark.parametrize("code,exc", [(errno.ENOSPC, OSError), (errno.EIO, OSError),
                                      (errno.EACCES, PermissionError)])
def test_a_failed_write_is_an_oserror_naming_the_file_and_errno(tmp_path, code, exc):
    path = tmp_path / "ckpt.ember"
    ember.save(state(1), path)
    try:
        ember._C.io._set_fault_plan(2, "error", code, only="write")
        with pytest.raises(exc) as e:
            ember.save(state(2), path)
    finally:
        ember._C.io._clear_fault_plan()
    assert e.value.errno == code and e.value.filename == str(path)
    assert os.strerror(code) in str(e.value)
    assert ember.load(path)["step"] == 1  # the previous file, whole
    assert not [p for p in os.listdir(tmp_path) if ".tmp." in p]


def test_every_call_of_a_python_save_failing_leaves_the_previous_checkpoint(tmp_path):
    path = tmp_path / "ckpt.ember"
    ember.save(state(1), path)
    ember._C.io._set_fault_plan(0)
    ember.save(state(2), path)
    n = ember._C.io._fault_points()
    ember._C.io._clear_fault_plan()
    assert n > 4
    for k in range(1, n + 1):
        ember.save(state(1), path)
        ember._C.io._set_fault_plan(k, "error", errno.ENOSPC)
        try:
            ember.save(state(2), path)
        except OSError as e:
            assert e.errno == errno.ENOSPC
        finally:
            ember._C.io._clear_fault_plan()
        assert ember.load(path)["step"] in (1, 2)
