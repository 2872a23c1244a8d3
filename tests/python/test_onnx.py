"""ember.onnx.export checked by onnxruntime: the tutorial's MLP and CNN, a torchvision-layout ResNet-18,
the GPT and the LSTM language model of tests/compat run in onnxruntime within 1e-5 of Ember, with
free batch and sequence dimensions where the model allows them; the files pass onnx.checker; an op without an
ONNX form is an error naming it."""
import importlib.util
import os

import numpy as np
import pytest

import ember
import ember.nn as nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {k: v.numpy() for k, v in feeds.items()})


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 10))


def cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(8 * 14 * 14, 10))


@pytest.mark.parametrize("name,build,shape,batches", [
    ("mlp", mlp, (1, 28, 28), (4, 7)),
    ("cnn", cnn, (1, 28, 28), (4, 3)),
    ("resnet18", lambda: load("bench/vision_models.py", "vm").resnet(nn, 18), (3, 32, 32), (2, 5)),
])
def test_image_models_match_onnxruntime_with_a_free_batch(tmp_path, name, build, shape, batches):
    ember.manual_seed(0)
    model = build()
    model.train()
    path = tmp_path / f"{name}.onnx"
    ember.onnx.export(model, ember.randn(batches[0], *shape), path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    onnx.checker.check_model(onnx.load(str(path)))
    model.eval()
    for batch in batches:
        x = ember.randn(batch, *shape)
        (got,) = run(path, {"x": x})
        np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_the_gpt_matches_onnxruntime(tmp_path):
    gpt = load("tests/compat/gpt.py", "compat_gpt")
    ember.manual_seed(1)
    model = gpt.GPT(65, 16, 2, 2, 32, 0.1)
    idx = ember.randint(0, 65, (3, 16))
    path = tmp_path / "gpt.onnx"
    ember.onnx.export(model, idx, path, input_names=["idx"], output_names=["logits"],
                      dynamic_axes={"idx": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})
    onnx.checker.check_model(onnx.load(str(path)))
    model.eval()
    for batch, seq in ((3, 16), (5, 16), (2, 9), (1, 12), (4, 1)):  # block size 16
        x = ember.randint(0, 65, (batch, seq))
        (got,) = run(path, {"idx": x})
        np.testing.assert_allclose(got, model(x)[0].detach().numpy(), rtol=1e-5, atol=1e-5)


def test_a_dynamic_axis_the_program_holds_fixed_is_refused(tmp_path):
    with pytest.raises(ValueError, match="frees dim 1 of 'x', but the traced program holds it at 784"):
        ember.onnx.export(nn.Linear(784, 3), ember.randn(2, 784), tmp_path / "l.onnx", input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "features"}})


def test_the_lstm_language_model_matches_onnxruntime(tmp_path):
    lstm = load("tests/compat/lstm_lm.py", "compat_lstm")
    ember.manual_seed(2)
    model = lstm.RNNModel("LSTM", 50, 16, 16, 2, 0.2, True)
    tokens = ember.randint(0, 50, (7, 3))
    hidden = (ember.randn(2, 3, 16), ember.randn(2, 3, 16))
    path = tmp_path / "lstm.onnx"
    ember.onnx.export(model, (tokens, hidden), path, input_names=["tokens", "h0", "c0"],
                      output_names=["log_probs", "hn", "cn"],
                      dynamic_axes={"tokens": {0: "seq", 1: "batch"}, "h0": {1: "batch"}, "c0": {1: "batch"}})
    onnx.checker.check_model(onnx.load(str(path)))
    model.eval()
    for seq, batch in ((7, 3), (4, 5), (12, 1)):
        tokens = ember.randint(0, 50, (seq, batch))
        hidden = (ember.randn(2, batch, 16), ember.randn(2, batch, 16))
        got = run(path, {"tokens": tokens, "h0": hidden[0], "c0": hidden[1]})
        log_probs, (hn, cn) = model(tokens, hidden)
        for a, b in zip(got, (log_probs, hn, cn)):
            np.testing.assert_allclose(a, b.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_factories_in_the_forward_follow_the_free_batch(tmp_path):
    class Offsets(nn.Module):
        def forward(self, x):
            b = x.size(0)
            return x + ember.ones(b, 1) * 2 + ember.arange(x.size(1)).float()

    path = tmp_path / "offsets.onnx"
    ember.onnx.export(Offsets(), ember.randn(4, 3), path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    onnx.checker.check_model(onnx.load(str(path)))
    for batch in (4, 1, 6):
        x = ember.randn(batch, 3)
        (got,) = run(path, {"x": x})
        np.testing.assert_allclose(got, Offsets()(x).numpy(), rtol=1e-6, atol=1e-6)


def test_an_op_without_an_onnx_form_is_named(tmp_path):
    class Cumulative(nn.Module):
        def forward(self, x):
            return x.cumsum(0)

    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="'cumsum'"):
        ember.onnx.export(Cumulative(), ember.randn(3, 2), tmp_path / "c.onnx")
