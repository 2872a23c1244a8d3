"""Soak test of checkpoints (make soak; not part of CI): trains the tutorial model
(tutorials/fashion_mnist, C++) again and again with --resume while this process, as a hostile
machine would:
  - kills it with SIGKILL at random moments, every 0.3 to 3 s;
  - flips a byte in an older checkpoint of its run directory now and then;
  - fills the run directory's disk now and then (a small tmpfs mounted for the run; without the
    right to mount, a directory on the ordinary disk and no disk-full rounds), so saves fail with
    ENOSPC and the trainer dies of it; the space is freed a few rounds later.
Every run that completes must end with a model equal, bit for bit, to an uninterrupted run's.

    .venv/bin/python tests/soak/soak.py --build build --seconds 600
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KEEP = 3


def trainer_cmd(binary, run_dir, args):
    return [binary, "--model", args.model, "--epochs", str(args.epochs), "--limit", str(args.limit),
            "--checkpoint-every", str(args.every), "--keep", str(KEEP), "--run-dir", run_dir, "--seed", "7"]


def final_model(run_dir):
    """The model tensors of the newest checkpoint of run_dir, as {name: bytes}."""
    import ember

    r = ember.io.load_latest(run_dir)
    assert r is not None, f"no checkpoint in {run_dir}"
    model = r.state["model"]
    return r.step, {k: v.detach().numpy().tobytes() for k, v in model.items()}


def mount_small_disk(path, megabytes):
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}M", "tmpfs", path], capture_output=True)
    return r.returncode == 0


def fill_disk(path):
    """Writes a filler file until the disk is full; returns its path."""
    filler = os.path.join(path, "filler.bin")
    chunk = b"\0" * (1 << 20)
    try:
        with open(filler, "wb") as f:
            while True:
                f.write(chunk)
    except OSError:
        pass
    return filler


def flip_a_byte_in_an_old_checkpoint(run_dir, rng):
    ckpts = sorted(p for p in os.listdir(run_dir) if p.startswith("ckpt-") and p.endswith(".ember"))
    if len(ckpts) < 2:
        return False
    path = os.path.join(run_dir, rng.choice(ckpts[:-1]))  # never the newest: one good one must remain
    size = os.path.getsize(path)
    if size == 0:
        return False
    with open(path, "r+b") as f:
        at = rng.randrange(size)
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ (1 << rng.randrange(8))]))
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--model", default="mlp")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--limit", type=int, default=20000)
    p.add_argument("--every", type=int, default=5, help="checkpoint every N steps")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    binary = os.path.join(args.build, "tutorials", "fashion_mnist", "fashion_mnist")
    rng = random.Random(args.seed)
    scratch = tempfile.mkdtemp(prefix="ember-soak-")
    disk = os.path.join(scratch, "disk")
    small_disk = mount_small_disk(disk, 64)
    if not small_disk:
        os.makedirs(disk, exist_ok=True)
        print("soak: cannot mount a tmpfs here: no disk-full rounds")
    stats = {"kills": 0, "runs": 0, "completed": 0, "flips": 0, "disk_full_rounds": 0, "failed_saves": 0,
             "mismatches": 0}
    try:
        ref_dir = os.path.join(scratch, "reference")
        t0 = time.time()
        subprocess.run(trainer_cmd(binary, ref_dir, args), check=True, capture_output=True)
        reference = final_model(ref_dir)
        print(f"soak: uninterrupted run: step {reference[0]}, {time.time() - t0:.1f} s")
        deadline = time.time() + args.seconds
        cycle = 0
        while time.time() < deadline:
            cycle += 1
            run_dir = os.path.join(disk, f"run{cycle}")
            filler = None
            full_for = 0
            while time.time() < deadline:
                stats["runs"] += 1
                cmd = trainer_cmd(binary, run_dir, args) + ["--resume"]
                proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                try:
                    proc.wait(timeout=rng.uniform(0.3, 3.0))
                except subprocess.TimeoutExpired:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    stats["kills"] += 1
                err = proc.stderr.read().decode(errors="replace")
                proc.stderr.close()
                if proc.returncode == 0:
                    break
                if proc.returncode != -signal.SIGKILL:
                    if "No space left on device" in err:
                        stats["failed_saves"] += 1
                    else:
                        raise SystemExit(f"soak: the trainer failed (exit {proc.returncode}):\n{err}")
                # Between runs, the machine misbehaves.
                if rng.random() < 0.3 and os.path.isdir(run_dir):
                    stats["flips"] += flip_a_byte_in_an_old_checkpoint(run_dir, rng)
                if small_disk and filler is None and rng.random() < 0.1:
                    filler = fill_disk(disk)
                    full_for = rng.randint(1, 3)
                    stats["disk_full_rounds"] += 1
                elif filler is not None:
                    full_for -= 1
                    if full_for <= 0:
                        os.remove(filler)
                        filler = None
            if filler is not None:
                os.remove(filler)
            if time.time() >= deadline and not os.path.isdir(run_dir):
                break
            if proc.returncode == 0:
                stats["completed"] += 1
                got = final_model(run_dir)
                if got != reference:
                    stats["mismatches"] += 1
                    print(f"soak: cycle {cycle}: the final model differs from the uninterrupted run's")
                else:
                    print(f"soak: cycle {cycle}: equal to the uninterrupted run bit for bit "
                          f"({stats['kills']} kills so far)")
            shutil.rmtree(run_dir, ignore_errors=True)
    finally:
        if small_disk:
            subprocess.run(["umount", disk])
        shutil.rmtree(scratch, ignore_errors=True)
    print("soak: " + json.dumps(stats))
    if stats["mismatches"] or not stats["completed"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
