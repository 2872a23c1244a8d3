"""Tutorial tutorials/gpt_autocast/ for a few steps, so that it cannot rot: the three runs (float32,
autocast to bfloat16, autocast to float16 with GradScaler) train from the same weights, keep float32
parameters and gradients, write the plot and end near each other."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
TEXT = "/usr/share/common-licenses/GPL-3"


@pytest.mark.skipif(not os.path.exists(TEXT), reason="the text the tutorial trains on is Debian's")
def test_the_three_runs_train_and_end_within_tolerance(tmp_path):
    out = tmp_path / "loss.png"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tutorials", "gpt_autocast", "train.py"), "--steps", "6",
                        "--batch", "4", "--block", "16", "--out", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    for mode in ("float32", "bfloat16", "float16"):
        assert f"{mode}: first loss" in r.stdout
    assert "autocast runs end within" in r.stdout and out.stat().st_size > 0
