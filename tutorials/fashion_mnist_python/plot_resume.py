#!/usr/bin/env python3
"""Proof of exact resume: train.py runs twice with the same settings, once uninterrupted and once
killed with SIGKILL past the halfway step (as a crash or a lost machine would end it) and then
resumed with --resume. The per-step loss curves of both runs go into a PNG, and they must be
identical: exit status 1 unless every step's loss is bitwise the same.

    .venv/bin/python tutorials/fashion_mnist_python/plot_resume.py             # MLP, 2 epochs, all data
    .venv/bin/python tutorials/fashion_mnist_python/plot_resume.py --limit 600 --batch-size 32 \\
        --checkpoint-every 7 --out /tmp/resume.png                             # seconds

The killed run has done some steps after its last checkpoint; the resumed run goes back to that
checkpoint and does them again. Its loss history comes from the checkpoint (train.py saves the
loss of every step in it), so the two histories must coincide step for step.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

import ember  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "train.py")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Plots the loss curves of an uninterrupted run and of a run "
                                            "killed halfway and resumed; fails unless they coincide exactly.")
    p.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--limit", type=int, default=0,
                   help="use only the first N training and test samples (0: all)")
    p.add_argument("--checkpoint-every", type=int, default=200, help="steps between checkpoints")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default=None,
                   help="directory of the idx files (train.py's default if not given)")
    p.add_argument("--work-dir", default="runs/fashion_mnist_python/resume_check",
                   help="where the two runs keep their checkpoints (emptied first)")
    p.add_argument("--out", default="runs/fashion_mnist_python/resume.png", help="the PNG to write")
    return p.parse_args(argv)


def train_command(args: argparse.Namespace, run_dir: str, *extra: str) -> list:
    cmd = [sys.executable, TRAIN, "--model", args.model, "--epochs", str(args.epochs),
           "--batch-size", str(args.batch_size), "--limit", str(args.limit),
           "--checkpoint-every", str(args.checkpoint_every), "--seed", str(args.seed), "--run-dir", run_dir]
    if args.data:
        cmd += ["--data", args.data]
    return cmd + list(extra)


def show(cmd: list) -> str:
    return " ".join(["python", os.path.relpath(cmd[1])] + cmd[2:])


def run_to_end(cmd: list) -> str:
    """Runs a command, echoing its output; its stdout, or SystemExit when it fails."""
    print("$", show(cmd), flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        sys.exit(f"plot_resume: the run failed with exit status {done.returncode}")
    return done.stdout


def run_and_kill(cmd: list, checkpoint_every: int) -> tuple:
    """Runs train.py --lockstep, which reports each step's loss and waits for a go-ahead, and kills
    it with SIGKILL once it reports the first step past halfway that is not a checkpoint step.
    Returns (its losses, by step from 1; the step it was killed after; total steps)."""
    print("$", show(cmd), "  # killed past halfway", flush=True)
    # NB: without the lockstep the run would be ahead of this loop by a pipe's worth of lines, and
    # a short run could even end before its kill.
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    losses, total, kill_at = [], None, None
    for line in child.stdout:
        m = re.match(r"^step (\d+) loss (\S+)$", line)
        if m is None:
            sys.stdout.write(line)
            t = re.match(r"^training: (\d+) steps", line)
            if t:
                total = int(t.group(1))
                kill_at = total // 2 + 1
                if kill_at % checkpoint_every == 0:  # land between checkpoints
                    kill_at += 1
            continue
        step, loss = int(m.group(1)), float(m.group(2))
        assert step == len(losses) + 1, f"step {step} after {len(losses)} steps"
        losses.append(loss)
        if kill_at is not None and step >= kill_at:
            child.send_signal(signal.SIGKILL)  # the run waits in the middle of its training loop
            break
        try:
            child.stdin.write("\n")
            child.stdin.flush()
        except BrokenPipeError:  # it died by itself: reported below
            break
    status = child.wait()
    child.stdout.close()
    child.stdin.close()
    if status != -signal.SIGKILL:
        sys.exit(f"plot_resume: the run ended with status {status} before it could be killed")
    print(f"killed with SIGKILL after step {len(losses)} of {total}", flush=True)
    return losses, len(losses), total


def history_of(run_dir: str) -> list:
    restored = ember.io.CheckpointManager(run_dir).restore()
    if restored is None:
        sys.exit(f"plot_resume: no checkpoint in {run_dir}")
    return restored.state["history"]


def plot(whole: list, killed: list, resumed: list, resumed_from: int, title: str, out: str) -> None:
    steps = range(1, len(whole) + 1)
    diff = [b - a for a, b in zip(whole, resumed)]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1]})
    top.plot(steps, whole, color="tab:blue", linewidth=4, alpha=0.35, label="uninterrupted run")
    top.plot(range(1, len(killed) + 1), killed, color="tab:red", linewidth=1,
             label=f"killed run (SIGKILL after step {len(killed)})")
    top.plot(range(resumed_from + 1, len(resumed) + 1), resumed[resumed_from:], color="black", linewidth=1,
             linestyle="--", label=f"resumed from the checkpoint of step {resumed_from}")
    top.axvline(len(killed), color="tab:red", linestyle=":", linewidth=1)
    top.axvline(resumed_from, color="black", linestyle=":", linewidth=1)
    top.set_ylabel("training loss (per step)")
    top.set_title(title)
    top.legend(loc="upper right")
    bottom.plot(steps[:len(diff)], diff, color="black", linewidth=1)
    bottom.set_ylabel("resumed − uninterrupted")
    bottom.set_xlabel("step")
    max_diff = max((abs(d) for d in diff), default=0.0)
    bottom.text(0.01, 0.85, f"max |difference| = {max_diff:g}", transform=bottom.transAxes)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.checkpoint_every < 1:
        sys.exit("plot_resume: --checkpoint-every must be positive (the killed run resumes from a "
                 "checkpoint)")
    whole_dir = os.path.join(args.work_dir, "uninterrupted")
    split_dir = os.path.join(args.work_dir, "killed_and_resumed")

    run_to_end(train_command(args, whole_dir, "--restart"))
    killed, killed_after, total = run_and_kill(train_command(args, split_dir, "--restart", "--lockstep"),
                                               args.checkpoint_every)
    latest = ember.io.CheckpointManager(split_dir).latest()
    if latest is None:
        sys.exit(f"plot_resume: the killed run left no checkpoint; lower --checkpoint-every "
                 f"(now {args.checkpoint_every}, kill after step {killed_after})")
    out = run_to_end(train_command(args, split_dir, "--resume"))
    if f"resumed from step {latest.step} " not in out:
        sys.exit(f"plot_resume: the resumed run did not start from the newest checkpoint "
                 f"(step {latest.step})")

    whole, resumed = history_of(whole_dir), history_of(split_dir)
    title = (f"Fashion-MNIST {args.model.upper()}, {args.epochs} epochs of {total // args.epochs} batches "
             f"of {args.batch_size}: killed after step {killed_after}, resumed from step {latest.step}")
    plot(whole, killed, resumed, latest.step, title, args.out)
    print(f"wrote {args.out}")

    same_length = len(whole) == len(resumed) == total
    max_diff = max((abs(a - b) for a, b in zip(whole, resumed)), default=0.0)
    killed_matches = killed == whole[:len(killed)]
    print(f"steps: uninterrupted {len(whole)}, killed and resumed {len(resumed)} (of {total})")
    print(f"max |loss difference| over all steps: {max_diff!r}")
    if not (same_length and whole == resumed and killed_matches):
        print("FAIL: the curves differ", file=sys.stderr)
        return 1
    print("the curves coincide exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
