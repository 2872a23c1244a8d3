"""Records what PyTorch gives for the scripts in tests/compat, so tests/python/test_compat_scripts.py
can compare Ember's run of the same code. Needs PyTorch (pip install torch numpy tensorboard); the output is
committed, so the tests never need it.

    python tests/compat/make_fixtures.py            # every script
    python tests/compat/make_fixtures.py resnet     # only those named

For each script: its data (a 512-image slice of Debian's Fashion-MNIST, saved with torch.save), its
initial state dict (torch.save of the model PyTorch built), and the losses of a short run of the
script itself under PyTorch, started from that state with shuffling and dropout off (the random
streams of the two libraries differ; everything else is the same code).
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
FMNIST = "/usr/share/datasets/fashion-mnist"
RUN_ARGS = ["--epochs", "2", "--batch-size", "32", "--test-batch-size", "64", "--dropout", "0", "--no-shuffle",
            "--lr", "0.5", "--log-interval", "1000"]


def read_idx(name, offset):
    with gzip.open(os.path.join(FMNIST, name)) as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def torch_version_of(script):
    """The script's source with its first line, `import ember as torch`, as `import torch`."""
    with open(script) as f:
        lines = f.read().split("\n")
    assert lines[0] == "import ember as torch", script
    body = "\n".join(["import torch"] + lines[1:])
    return body.replace("import ember.", "import torch.").replace("from ember.", "from torch.")


def main(names):
    os.makedirs(FIXTURES, exist_ok=True)
    data_path = os.path.join(FIXTURES, "fmnist_512.pt")
    if not names or "mnist_cnn" in names or not os.path.exists(data_path):
        images = read_idx("train-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28)[:512].copy()
        labels = read_idx("train-labels-idx1-ubyte.gz", 8)[:512].astype(np.int64)
        torch.save({"images": torch.from_numpy(images), "labels": torch.from_numpy(labels)}, data_path)

    if not names or "mnist_cnn" in names:
        torch.manual_seed(0)
        record("mnist_cnn", data_path, lambda ns: ns["Net"](0.0), RUN_ARGS)
    if not names or "gpt" in names:
        record_gpt()
    if not names or "resnet" in names:
        torch.manual_seed(0)
        build = lambda ns: ns["build_model"]("resnet10", 8, 1)  # noqa: E731
        record("resnet", data_path, build, RESNET_ARGS)
        # the same run in float64, where the two libraries agree to rounding (float32 runs drift apart
        # as training amplifies rounding: PyTorch's own float32 run is 1% from its float64 one)
        record("resnet", data_path, build, RESNET_ARGS + ["--double"], out_name="resnet_float64",
               init_path=os.path.join(FIXTURES, "resnet_init.pt"))
    if not names or "transformer_lm" in names:
        record_transformer_lm()
    if not names or "lstm_lm" in names:
        record_lstm_lm()
    if not names or "tensorboard_regression" in names:
        record_tensorboard_regression()
    if not names or "fourier_1d" in names:
        record_fourier_1d()
    if not names or "per_sample_grads" in names:
        torch.manual_seed(0)
        record("per_sample_grads", data_path, lambda ns: ns["SimpleCNN"](), PER_SAMPLE_ARGS)


TENSORBOARD_ARGS = ["--epochs", "20"]


FOURIER_ARGS = ["--epochs", "4", "--modes", "8", "--width", "16"]
PER_SAMPLE_ARGS = ["--batch-size", "16", "--batches", "4", "--epochs", "2", "--lr", "0.5"]


def record_fourier_1d():
    """Burgers-like pairs (a random walk a(x) and its heat-smoothed u(x), 64 of 128 points), the
    FNO's initial weights and its losses under PyTorch."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 128)).cumsum(1) / 10
    u = np.fft.irfft(np.fft.rfft(a) * np.exp(-0.05 * np.arange(65)), n=128)
    data_path = os.path.join(FIXTURES, "fourier_1d_data.pt")
    torch.save({"a": torch.tensor(a, dtype=torch.float32), "u": torch.tensor(u, dtype=torch.float32)}, data_path)
    torch.manual_seed(0)
    record("fourier_1d", data_path, lambda ns: ns["FNO1d"](8, 16), FOURIER_ARGS)


def record_tensorboard_regression():
    """The recipe's data and initial weights, and the losses it logged under PyTorch, read back from
    its event file with TensorBoard's reader (needs pip install tensorboard)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    torch.manual_seed(0)
    x = torch.arange(-5, 5, 0.1).view(-1, 1)
    data_path = os.path.join(FIXTURES, "tensorboard_regression_data.pt")
    torch.save({"x": x, "y": -5 * x + 0.1 * torch.randn(x.size())}, data_path)
    init_path = os.path.join(FIXTURES, "tensorboard_regression_init.pt")
    torch.save(torch.nn.Linear(1, 1).state_dict(), init_path)
    script = os.path.join(HERE, "tensorboard_regression.py")
    with tempfile.TemporaryDirectory() as cwd:
        torch_script = os.path.join(cwd, "tensorboard_regression_torch.py")
        with open(torch_script, "w") as f:
            f.write(torch_version_of(script))
        subprocess.run([sys.executable, torch_script, "--log-dir", os.path.join(cwd, "log"), "--data", data_path,
                        "--init", init_path, *TENSORBOARD_ARGS], check=True, cwd=cwd,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
        acc = EventAccumulator(os.path.join(cwd, "log"))
        acc.Reload()
        events = acc.Scalars("Loss/train")
    out = os.path.join(FIXTURES, "tensorboard_regression.losses.json")
    with open(out, "w") as f:
        json.dump({"steps": [e.step for e in events], "train": [e.value for e in events],
                   "args": TENSORBOARD_ARGS, "torch": torch.__version__}, f, indent=1)
    print(f"wrote {out}: {len(events)} losses")


# A ResNet-10 of width 8 (ResNet-18's layout with one block per stage, an eighth of its channels), two
# epochs of 12 steps.
RESNET_ARGS = ["-a", "resnet10", "--width", "8", "--epochs", "2", "-b", "32", "--lr", "0.05", "--no-shuffle",
               "-p", "100"]


GPT_ARGS = ["--max-iters", "30", "--dropout", "0", "--sequential-batches", "--batch-size", "4", "--block-size", "32",
            "--lr", "3e-3"]


def record_gpt():
    # Tokens: the bytes of a fixed text (this file's docstring repeated), ids in order of first use.
    text = (__doc__ * 40).encode()
    vocab = sorted(set(text))
    tokens = torch.tensor([vocab.index(b) for b in text], dtype=torch.long)
    data_path = os.path.join(FIXTURES, "gpt_tokens.pt")
    torch.save({"tokens": tokens}, data_path)
    torch.manual_seed(0)
    record("gpt", data_path, lambda ns: ns["GPT"](vocab_size=len(vocab), block_size=32, n_layer=2, n_head=4,
                                                  n_embd=64, dropout=0.0), GPT_ARGS)


LM_ARGS = ["--emsize", "32", "--nhid", "48", "--nlayers", "2", "--nhead", "2", "--bptt", "16", "--batch_size", "64",
           "--epochs", "2", "--dropout", "0", "--lr", "5", "--log-interval", "10"]


def record_transformer_lm():
    # The GPT's tokens (record_gpt writes them) as the corpus: 80% to train on, the rest to validate.
    data_path = os.path.join(FIXTURES, "gpt_tokens.pt")
    ntokens = int(torch.load(data_path)["tokens"].max()) + 1
    torch.manual_seed(0)
    record("transformer_lm", data_path, lambda ns: ns["TransformerModel"](ntokens, 32, 2, 48, 2, dropout=0.0, max_len=16),
           LM_ARGS)


LSTM_LM_ARGS = ["--epochs", "4", "--emsize", "32", "--nhid", "32", "--nlayers", "2", "--batch_size", "8", "--bptt",
                "12", "--dropout", "0", "--tied", "--lr", "20", "--log-interval", "10"]


def record_lstm_lm():
    # A word corpus: three of this repository's documents, one line of text per line.
    root = os.path.dirname(os.path.dirname(HERE))
    data_dir = os.path.join(FIXTURES, "lstm_lm_corpus")
    os.makedirs(data_dir, exist_ok=True)
    for split, docs in (("train", ["README.md", "io/FORMAT.md"]), ("valid", ["tutorials/adding_an_op.md"]),
                        ("test", ["tests/compat/README.md"])):
        with open(os.path.join(data_dir, f"{split}.txt"), "w", encoding="utf8") as out:
            for doc in docs:
                with open(os.path.join(root, doc), encoding="utf8") as f:
                    out.writelines(line for line in f if line.strip())
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as scratch:
        record("lstm_lm", data_dir,
               lambda ns: ns["RNNModel"]("LSTM", len(ns["Corpus"](data_dir).dictionary), 32, 32, 2, 0.0, True),
               LSTM_LM_ARGS, extra=["--save", os.path.join(scratch, "model.pt")])


def record(name, data_path, build_model, args, out_name=None, init_path=None, extra=()):
    """Saves the initial state dict of build_model(the script's namespace under PyTorch) (unless
    init_path names one already saved), runs the script under PyTorch from it with args (and `extra`,
    not recorded), and writes fixtures/<out_name, default name>.losses.json."""
    script = os.path.join(HERE, f"{name}.py")
    source = torch_version_of(script)
    if init_path is None:
        namespace = {"__name__": "compat_fixture"}
        exec(compile(source, script, "exec"), namespace)
        init_path = os.path.join(FIXTURES, f"{name}_init.pt")
        torch.save(build_model(namespace).state_dict(), init_path)
    torch_script = os.path.join(FIXTURES, f"{name}_torch.py")
    with open(torch_script, "w") as f:
        f.write(source)
    out = os.path.join(FIXTURES, f"{out_name or name}.losses.json")
    with tempfile.TemporaryDirectory() as cwd:  # where a script writes its checkpoints
        subprocess.run([sys.executable, torch_script, "--data", data_path, "--init", init_path, "--losses-out", out,
                        *args, *extra], check=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, cwd=cwd)
    os.remove(torch_script)
    with open(out) as f:
        recorded = json.load(f)
    recorded["args"] = args
    recorded["torch"] = torch.__version__
    with open(out, "w") as f:
        json.dump(recorded, f, indent=1)
    print(f"wrote {out}: {len(recorded['train'])} losses")


if __name__ == "__main__":
    main(sys.argv[1:])
