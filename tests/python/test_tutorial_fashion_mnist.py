"""Tutorial 2 (tutorials/fashion_mnist_python/) on the first 600 images, so that it cannot rot: each
model trains 2 epochs to a sane test accuracy, and plot_resume.py kills a run with SIGKILL past
halfway, resumes it and plots its loss curve on the uninterrupted run's: they must coincide exactly.
Skipped when the data set is not installed (scripts/install_deps.sh data)."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TUTORIAL = os.path.join(ROOT, "tutorials", "fashion_mnist_python")
DATA = "/usr/share/datasets/fashion-mnist"
SHORT = ["--limit", "600", "--epochs", "2", "--batch-size", "32", "--checkpoint-every", "7"]

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(DATA, "train-images-idx3-ubyte.gz")),
    reason=f"Fashion-MNIST is not installed ({DATA}); run scripts/install_deps.sh data")


def run(script, *args):
    done = subprocess.run([sys.executable, os.path.join(TUTORIAL, script), *args], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{script} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_short_run_learns(model, tmp_path):
    out = run("train.py", "--model", model, *SHORT, "--run-dir", str(tmp_path / "run"))
    assert "training: 38 steps (2 epochs of 19 batches)" in out
    accuracy = float(re.search(r"^test accuracy: ([\d.]+)%", out, re.M).group(1))
    assert accuracy > 60, out
    assert re.search(r"^done: step 38, ", out, re.M), out
    assert os.path.exists(tmp_path / "run" / "ckpt-000000000038.ember")


def test_stop_and_resume_ends_as_the_uninterrupted_run(tmp_path):
    whole = run("train.py", *SHORT, "--run-dir", str(tmp_path / "whole"))
    first = run("train.py", *SHORT, "--run-dir", str(tmp_path / "split"), "--stop-after", "27")
    assert "stopped at step 27; continue with --resume" in first
    second = run("train.py", *SHORT, "--run-dir", str(tmp_path / "split"), "--resume")
    assert "resumed from step 27 (epoch 2, batch 8 of 19)" in second

    def ending(out):
        return re.findall(r"^(test accuracy: .*|done: step \d+, last batch loss \S+)", out, re.M)

    assert ending(second) == ending(whole) and len(ending(whole)) == 2


def test_killed_run_resumes_onto_the_same_loss_curve(tmp_path):
    png = tmp_path / "resume.png"
    out = run("plot_resume.py", *SHORT, "--work-dir", str(tmp_path / "runs"), "--out", str(png))
    assert "killed with SIGKILL" in out
    assert "max |loss difference| over all steps: 0.0" in out
    assert "the curves coincide exactly" in out
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
