#!/usr/bin/env python3
"""Tutorial 2: Fashion-MNIST from Python, tutorial 1 (tutorials/fashion_mnist/main.cpp) line for line.

An MLP (784-256-128-10) or a small CNN; ember.data.FashionMNIST reads the Debian files,
ember.data.DataLoader shuffles them with its own generator, Adam with a cosine schedule trains, a
tqdm bar reports, the test set is evaluated, and ember.io.CheckpointManager saves the whole state
every N steps (model, optimizer, schedule, loader position, generators, the loss of every step so
far), so that --resume goes on exactly where a run stopped, even one killed with SIGKILL.

    .venv/bin/python tutorials/fashion_mnist_python/train.py --model mlp --epochs 3
    .venv/bin/python tutorials/fashion_mnist_python/train.py --resume    # after Ctrl-C, a crash, kill -9
"""
from __future__ import annotations

import argparse
import os
import sys

from tqdm import tqdm

import ember
from ember import nn, optim
from ember.data import DataLoader, FashionMNIST
from ember.nn import functional as F

# The training set's mean and standard deviation of pixel values (in [0, 1]).
MEAN, STD = 0.2860, 0.3530


def make_model(kind: str) -> nn.Module:
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 14 x 14
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 7 x 7
        nn.Flatten(), nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))


def preprocess(images: ember.Tensor) -> ember.Tensor:
    """uint8 images [B, 28, 28] -> standardised float32 [B, 1, 28, 28]."""
    return images.to(ember.float32).div(255.0).sub(MEAN).div(STD).unsqueeze(1)


def take_first(split: FashionMNIST, limit: int) -> None:
    """Keeps the first `limit` samples (all when limit is 0 or larger than the split)."""
    if 0 < limit < len(split):
        split.images = split.images.narrow(0, 0, limit).contiguous()
        split.labels = split.labels.narrow(0, 0, limit).contiguous()


def count_correct(logits: ember.Tensor, targets: ember.Tensor) -> int:
    return logits.argmax(1).eq(targets).sum().item()


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Trains an MLP or a small CNN on Fashion-MNIST, with "
                                            "checkpoints and --resume.")
    p.add_argument("--model", choices=["mlp", "cnn"], default="mlp", help="mlp (784-256-128-10) or cnn")
    p.add_argument("--epochs", type=int, default=3,
                   help="training epochs in all (a resumed run counts the ones done)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate, cosine-annealed to lr/100")
    p.add_argument("--limit", type=int, default=0,
                   help="use only the first N training and N test samples (0: all)")
    p.add_argument("--data", default=FashionMNIST.default_root, help="directory of the idx files")
    p.add_argument("--run-dir", default="runs/fashion_mnist_python", help="checkpoint directory")
    p.add_argument("--checkpoint-every", type=int, default=500,
                   help="save a checkpoint every N steps (0: only at the end)")
    p.add_argument("--keep", type=int, default=3, help="checkpoints to keep")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true",
                      help="continue from the newest checkpoint in --run-dir")
    mode.add_argument("--restart", action="store_true",
                      help="delete the checkpoints in --run-dir and start afresh")
    p.add_argument("--stop-after", type=int, default=0, help="save and stop once N steps in all are done")
    p.add_argument("--seed", type=int, default=0, help="seed of the initialisation and of the data order")
    p.add_argument("--lockstep", action="store_true",
                   help="after every step print 'step N loss X' and wait for a line on stdin (EOF: run on), "
                        "so that a script (plot_resume.py) can kill the run at the step it chooses")
    args = p.parse_args(argv)
    for name in ("epochs", "batch_size", "keep"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    for name in ("limit", "checkpoint_every", "stop_after", "seed"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must not be negative")
    return args


def run(args: argparse.Namespace) -> int:
    ember.manual_seed(args.seed)
    train_set = FashionMNIST(args.data, train=True)
    test_set = FashionMNIST(args.data, train=False)
    take_first(train_set, args.limit)
    take_first(test_set, args.limit)
    print(f"Fashion-MNIST: {len(train_set)} training and {len(test_set)} test images from {args.data}")

    loader = DataLoader(train_set.images, train_set.labels, batch_size=args.batch_size, shuffle=True,
                        seed=args.seed + 1)
    model = make_model(args.model)
    adam = optim.Adam(model.named_parameters(), lr=args.lr)
    batches = len(loader)
    total_steps = args.epochs * batches
    sched = optim.lr_scheduler.CosineAnnealingLR(adam, T_max=max(total_steps, 1), eta_min=args.lr / 100)
    print(f"training: {total_steps} steps ({args.epochs} epochs of {batches} batches)", flush=True)
    # What a checkpoint's position means depends on these: a resume must use the same.
    run_config = {"model": args.model, "batch_size": args.batch_size, "train_samples": len(train_set)}

    # A fresh run must not mix its checkpoints with an older run's.
    if args.restart and os.path.isdir(args.run_dir):
        for entry in ember.io.CheckpointManager(args.run_dir, args.keep).checkpoints():
            os.remove(entry.path)
    manager = ember.io.CheckpointManager(args.run_dir, keep_last=args.keep)
    step, first_epoch, resume_batch = 0, 0, 0
    history: list[float] = []  # the loss of every step, in order
    if args.resume:
        restored = manager.restore()
        if restored is None:
            print(f"no checkpoint in {args.run_dir}: starting afresh")
        else:
            state = restored.state
            if state["config"] != run_config:
                raise ValueError(f"--resume: '{restored.path}' is a checkpoint of another configuration: "
                                 f"{state['config']}, this run: {run_config}")
            model.load_state_dict(state["model"])
            adam.load_state_dict(state["optimizer"])
            sched.load_state_dict(state["scheduler"])
            loader.load_state_dict(state["loader"])  # the next `for ... in loader` goes on mid-epoch
            ember.default_generator().load_state_dict(state["default_generator"])
            step, first_epoch, history = state["step"], state["epoch"], state["history"]
            resume_batch = loader.position
            print(f"resumed from step {step} (epoch {first_epoch + 1}, batch {loader.position} of {batches}) "
                  f"in {restored.path}")
    elif manager.checkpoints():
        print(f"train.py: {args.run_dir} already holds checkpoints; pass --resume to continue that run or "
              f"--restart to delete them and start over", file=sys.stderr)
        return 2

    def save(epoch: int) -> None:
        # NB: the history is part of the state: a run killed after its last checkpoint is resumed
        # from that checkpoint, and the steps it did after it are done again and recorded again.
        manager.save({"config": run_config, "model": model, "optimizer": adam, "scheduler": sched,
                      "loader": loader.state_dict(), "default_generator": ember.default_generator(),
                      "step": step, "epoch": epoch, "history": history}, step)

    last_loss = float("nan")
    for epoch in range(first_epoch, args.epochs):
        model.train()
        epoch_samples = loader.num_samples
        # tqdm reports samples/s and the epoch's ETA; disable=None: no bar when stderr is no terminal.
        bar = tqdm(total=epoch_samples, initial=min(resume_batch * args.batch_size, epoch_samples),
                   desc=f"epoch {epoch + 1}/{args.epochs}", unit="sample", unit_scale=True, disable=None,
                   dynamic_ncols=True)
        resume_batch = 0
        loss_sum, correct, seen = 0.0, 0, 0
        for inputs, targets in loader:
            logits = model(preprocess(inputs))
            loss = F.cross_entropy(logits, targets)
            adam.zero_grad()
            loss.backward()
            adam.step()
            sched.step()
            step += 1

            n = targets.shape[0]
            last_loss = loss.item()
            history.append(last_loss)
            loss_sum += last_loss * n
            with ember.no_grad():
                correct += count_correct(logits, targets)
            seen += n
            summary = f"loss {loss_sum / seen:.4f}  acc {100 * correct / seen:5.1f}%"
            bar.set_postfix_str(summary, refresh=False)
            bar.update(n)
            if args.checkpoint_every > 0 and step % args.checkpoint_every == 0:
                save(epoch)
            if args.lockstep:
                print(f"step {step} loss {last_loss!r}", flush=True)
                args.lockstep = bool(sys.stdin.readline())
            if args.stop_after > 0 and step >= args.stop_after:
                bar.close()
                save(epoch)
                print(f"stopped at step {step}; continue with --resume")
                return 0
        shown = not bar.disable  # NB: close() sets disable
        bar.close()
        if not shown and seen > 0:
            print(f"epoch {epoch + 1}/{args.epochs}: {summary}", flush=True)
        if epoch == args.epochs - 1:
            save(epoch)  # the finished run, whatever --checkpoint-every is

    # Evaluation: the whole test set in batches, no graph.
    model.eval()
    correct = 0
    with ember.no_grad():
        for inputs, targets in DataLoader(test_set.images, test_set.labels, batch_size=1000):
            correct += count_correct(model(preprocess(inputs)), targets)
    print(f"test accuracy: {100 * correct / len(test_set):.2f}% ({correct}/{len(test_set)})")
    # NB: printed in full so that a resumed run can be compared with an uninterrupted one.
    print(f"done: step {step}, last batch loss {last_loss:.9g}, checkpoints in {args.run_dir}")
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return run(args)
    except (OSError, RuntimeError, ValueError, KeyError) as e:  # no data set, a mismatched checkpoint
        print(f"train.py: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
