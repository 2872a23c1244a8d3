"""A model defined in Python trains on in a C++ loop that has no class for it, and comes back.

    python python_to_cpp.py PROGRAM_TRAINER WORKDIR

The class below trains 10 steps here, is traced and saved (ember.jit.save); the C++ program
PROGRAM_TRAINER (tests/install/consumer/program_trainer.cpp, built against the installed package)
loads the file, trains 10 more steps with AdamW and writes a checkpoint; that checkpoint loads back
into the class by name, and its parameters equal, bit for bit, those of the same 10 steps taken
here eagerly. The frozen parameter (requires_grad=False), the non-persistent buffer and the tied
pair keep what they were (the Paddle bug this project started from)."""
import os
import subprocess
import sys

import ember
import ember.nn as nn
import ember.nn.functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab=13, width=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.mix = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.emb.weight  # tied
        self.temperature = nn.Parameter(ember.full((vocab,), 0.9), requires_grad=False)
        self.register_buffer("bias", ember.linspace(-0.1, 0.1, vocab), persistent=False)

    def forward(self, tokens):
        h = self.drop(F.gelu(self.norm(self.mix(self.emb(tokens)))))
        return (self.head(h) * self.temperature + self.bias).view(-1, self.temperature.shape[0])


def train(model, x, y, steps, seed, lr):
    ember.manual_seed(seed)
    opt = ember.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return opt


def main():
    trainer, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ember.manual_seed(0)
    model = TinyLM()
    x = ember.randint(0, 13, (4, 6))
    y = ember.randint(0, 13, (24,))
    train(model, x, y, 10, seed=1, lr=1e-2)

    program, data, out = (os.path.join(work, f) for f in ("model.ember", "data.ember", "trained.ember"))
    ember.jit.save(ember.jit.trace(model, x), program)
    ember.save({"x": x, "y": y, "seed": 2, "lr": 5e-3, "steps": 10}, data)
    run = subprocess.run([trainer, program, data, out], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr

    train(model, x, y, 10, seed=2, lr=5e-3)  # the same 10 steps, eagerly
    checkpoint = ember.load(out)
    back = TinyLM()
    report = back.load_state_dict(checkpoint["model"])
    assert not report.missing_keys and not report.unexpected_keys, report
    for name, p in model.named_parameters():
        q = dict(back.named_parameters())[name]
        assert ember.equal(p, q), f"{name} differs after the C++ steps"
    assert back.head.weight is back.emb.weight
    assert not back.temperature.requires_grad
    assert ember.equal(back.temperature, ember.full((13,), 0.9))
    opt = ember.optim.AdamW(back.parameters(), lr=5e-3)
    opt.load_state_dict(checkpoint["optimizer"])
    assert all(s["step"] == 10 for s in opt.state.values())
    print("python_to_cpp: 10 Python steps, 10 C++ steps on the traced program, parameters equal bit for bit")


if __name__ == "__main__":
    main()
