#!/usr/bin/env python3
"""A character-level GPT trained three ways from the same initial weights: in float32, under
autocast to bfloat16, and under autocast to float16 with loss scaling (GradScaler). The model and
its optimizer stay float32 in all three; autocast runs the products (linear, attention) in 16 bits
and the loss in float32. The loss curves go into a PNG, and the run fails (exit status 1) unless
both 16-bit runs end within --tolerance of the float32 run's loss.

    .venv/bin/python tutorials/gpt_autocast/train.py                  # 300 steps, a few minutes
    .venv/bin/python tutorials/gpt_autocast/train.py --steps 20 --out /tmp/gpt.png   # seconds

The text is the GPL's (Debian's /usr/share/common-licenses/GPL-3), 35 kB of English.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

import ember  # noqa: E402
import ember.nn as nn  # noqa: E402
import ember.nn.functional as F  # noqa: E402


class Block(nn.Module):
    """nanoGPT's pre-norm decoder block."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc, self.fc_proj = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = (y.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for y in self.attn(self.ln_1(x)).split(c, dim=2))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.fc_proj(F.gelu(self.fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, vocab: int, block: int, width: int = 128, layers: int = 2, heads: int = 4):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(block, width)
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(ember.arange(idx.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def train(mode: str, text: ember.Tensor, vocab: int, args) -> tuple[list[float], float]:
    """Losses of every step and seconds per step, for mode "float32", "bfloat16" or "float16"."""
    ember.manual_seed(args.seed)
    model = GPT(vocab, args.block)
    opt = ember.optim.AdamW(model.parameters(), lr=args.lr)
    amp_dtype = None if mode == "float32" else getattr(ember, mode)
    # loss scaling keeps float16's small gradients from flushing to zero; bfloat16 has float32's range
    scaler = ember.amp.GradScaler("cpu", enabled=mode == "float16")
    batches = ember.Generator().manual_seed(args.seed + 1)
    losses, start = [], time.perf_counter()
    for _ in range(args.steps):
        at = ember.randint(0, text.numel() - args.block - 1, (args.batch,), generator=batches)
        window = ember.stack([text[i:i + args.block + 1] for i in at.tolist()])
        x, y = window[:, :-1], window[:, 1:]
        opt.zero_grad()
        with ember.autocast("cpu", dtype=amp_dtype or ember.bfloat16, enabled=amp_dtype is not None):
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))  # float32 under autocast
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert all(p.dtype == ember.float32 and p.grad.dtype == ember.float32 for p in model.parameters())
    return losses, (time.perf_counter() - start) / args.steps


def smoothed(values: list[float], k: int) -> float:
    return sum(values[-k:]) / len(values[-k:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=0.1, help="final-loss gap allowed (nats)")
    parser.add_argument("--text", default="/usr/share/common-licenses/GPL-3")
    parser.add_argument("--out", default="runs/gpt_autocast/loss.png")
    args = parser.parse_args()

    with open(args.text, "rb") as f:
        data = f.read()
    vocab = 256  # bytes
    text = ember.tensor(list(data), dtype=ember.int64)

    curves = {}
    for mode in ("float32", "bfloat16", "float16"):
        losses, per_step = train(mode, text, vocab, args)
        curves[mode] = losses
        print(f"{mode:>8}: first loss {losses[0]:.4f}, last {smoothed(losses, 10):.4f} (mean of the last 10 "
              f"steps), {per_step * 1e3:.1f} ms/step")

    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4))
    for mode, losses in curves.items():
        label = mode if mode == "float32" else f"autocast {mode}" + (" + GradScaler" if mode == "float16" else "")
        ax.plot(range(1, len(losses) + 1), losses, label=label, linewidth=1)
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per byte)")
    ax.set_title("char-level GPT: float32 against autocast, same initial weights")
    ax.axhline(math.log(vocab), color="grey", linewidth=0.5)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")

    base = smoothed(curves["float32"], 10)
    worst = max(abs(smoothed(curves[m], 10) - base) for m in ("bfloat16", "float16"))
    if worst > args.tolerance:
        print(f"FAILED: a 16-bit run ends {worst:.4f} from float32's loss (tolerance {args.tolerance})")
        return 1
    print(f"autocast runs end within {worst:.4f} of float32's loss")
    return 0


if __name__ == "__main__":
    sys.exit(main())
