"""ember.utils.tensorboard.SummaryWriter: what it writes, read back with TensorBoard's own event
reader (EventAccumulator), as TensorBoard shows it."""
import io

import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.plugins.hparams import metadata as hparams_metadata

import ember
from ember.utils.tensorboard import SummaryWriter


def read(path):
    acc = EventAccumulator(str(path), size_guidance={"images": 0, "histograms": 0, "scalars": 0, "tensors": 0})
    acc.Reload()
    return acc


def test_scalars_come_back_with_their_steps_and_values(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for step in range(5):
            writer.add_scalar("loss/train", 1.0 / (step + 1), step)
        writer.add_scalar("lr", ember.tensor(0.125), global_step=ember.tensor(7))  # 0-dim tensors, as scripts pass
        writer.add_scalar("acc", np.float32(0.5), 3, walltime=1234.5)
    acc = read(tmp_path)
    assert set(acc.Tags()["scalars"]) == {"loss/train", "lr", "acc"}
    loss = acc.Scalars("loss/train")
    assert [e.step for e in loss] == list(range(5))
    np.testing.assert_allclose([e.value for e in loss], [1.0 / (s + 1) for s in range(5)], rtol=1e-7)
    assert [(e.step, e.value) for e in acc.Scalars("lr")] == [(7, 0.125)]
    assert acc.Scalars("acc")[0].wall_time == 1234.5
    with pytest.raises(ValueError, match=r"'bad' needs a single number.*\[2\]"):
        SummaryWriter(tmp_path / "other").add_scalar("bad", ember.ones(2))


def test_add_scalars_puts_each_series_in_a_run_of_its_own(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalars("loss", {"train": 1.0 + step, "val": 2.0 * step}, step)
    assert [e.value for e in read(tmp_path / "loss_train").Scalars("loss")] == [1.0, 2.0, 3.0]
    assert [e.value for e in read(tmp_path / "loss_val").Scalars("loss")] == [0.0, 2.0, 4.0]


def test_histograms_hold_every_value_and_numpy_statistics(tmp_path):
    ember.manual_seed(0)
    weights = ember.randn(1000, dtype=ember.float64)
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram("fc.weight", weights, 1)
        writer.add_histogram("fixed", np.array([0.5, 1.5, 1.5, 3.0]), 2, bins=[0, 1, 2, 3])
        writer.add_histogram("merged", np.arange(100.0), 3, bins=50, max_bins=10)
    acc = read(tmp_path)
    h = acc.Histograms("fc.weight")[0].histogram_value
    w = weights.numpy()
    assert h.num == 1000 and sum(h.bucket) == 1000
    np.testing.assert_allclose([h.min, h.max, h.sum, h.sum_squares], [w.min(), w.max(), w.sum(), (w * w).sum()])
    assert list(h.bucket_limit) == sorted(h.bucket_limit) and h.bucket_limit[-1] >= w.max()
    fixed = acc.Histograms("fixed")[0].histogram_value
    assert list(fixed.bucket) == [1, 2, 1] and list(fixed.bucket_limit) == [1, 2, 3]
    merged = acc.Histograms("merged")[0].histogram_value
    assert len(merged.bucket) <= 10 and sum(merged.bucket) == 100
    with pytest.raises(ValueError, match="'bad' holds 1 inf or NaN"):
        SummaryWriter(tmp_path / "other").add_histogram("bad", np.array([1.0, np.nan]))


def png(event):
    return np.array(Image.open(io.BytesIO(event.encoded_image_string)))


def test_images_are_pngs_of_the_pixels_in_each_dataformat(tmp_path):
    rng = np.random.default_rng(0)
    chw = rng.random((3, 4, 5)).astype(np.float32)
    expected = (chw.transpose(1, 2, 0) * 255 + 0.5).astype(np.uint8)
    gray = rng.integers(0, 256, (6, 7), dtype=np.uint8)
    batch = rng.random((3, 3, 2, 2)).astype(np.float32)
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("chw", ember.from_numpy(chw), 0)
        writer.add_image("hwc", chw.transpose(1, 2, 0), 0, dataformats="HWC")
        writer.add_image("gray", gray, 0, dataformats="HW")
        writer.add_images("batch", batch, 0)
    acc = read(tmp_path)
    for tag in ("chw", "hwc"):
        event = acc.Images(tag)[0]
        assert (event.height, event.width) == (4, 5)
        np.testing.assert_array_equal(png(event), expected)
    np.testing.assert_array_equal(png(acc.Images("gray")[0]), gray)
    grid = png(acc.Images("batch")[0])
    assert grid.shape == (2, 6, 3)  # three 2x2 images side by side
    np.testing.assert_array_equal(grid[:, 2:4], (batch[1].transpose(1, 2, 0) * 255 + 0.5).astype(np.uint8))
    with pytest.raises(ValueError, match="1, 3 or 4 channels, got 5"):
        SummaryWriter(tmp_path / "other").add_image("bad", np.zeros((5, 2, 2)))


def test_text_is_read_by_the_text_plugin(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_text("notes", "lr **0.1**, batch 64", 4)
    acc = read(tmp_path)
    assert "notes/text_summary" in acc.Tags()["tensors"]
    event = acc.Tensors("notes/text_summary")[0]
    assert event.step == 4 and event.tensor_proto.string_val == [b"lr **0.1**, batch 64"]
    assert acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


def test_hparams_are_a_run_the_hparams_plugin_parses(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_hparams({"lr": 0.1, "batch": 64, "optim": "sgd", "nesterov": True},
                           {"hparam/accuracy": 0.91}, hparam_domain_discrete={"optim": ["sgd", "adam"]},
                           run_name="trial0")
    acc = read(tmp_path / "trial0")
    content = acc.PluginTagToContent(hparams_metadata.PLUGIN_NAME)
    start = hparams_metadata.parse_session_start_info_plugin_data(content[hparams_metadata.SESSION_START_INFO_TAG])
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["batch"].number_value == 64
    assert start.hparams["optim"].string_value == "sgd" and start.hparams["nesterov"].bool_value is True
    experiment = hparams_metadata.parse_experiment_plugin_data(content[hparams_metadata.EXPERIMENT_TAG])
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/accuracy"]
    optim = next(i for i in experiment.hparam_infos if i.name == "optim")
    assert [v.string_value for v in optim.domain_discrete.values] == ["sgd", "adam"]
    np.testing.assert_allclose(acc.Scalars("hparam/accuracy")[0].value, 0.91, rtol=1e-7)
    with pytest.raises(ValueError, match="'bad' is a list"):
        SummaryWriter(tmp_path / "other").add_hparams({"bad": [1]}, {})


def test_default_log_dir_flush_and_reopen_after_close(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = SummaryWriter(comment="_exp")
    assert writer.get_logdir().startswith("runs") and writer.get_logdir().endswith("_exp")
    writer.add_scalar("x", 1.0, 0)
    writer.flush()
    assert [e.value for e in read(writer.get_logdir()).Scalars("x")] == [1.0]  # on disk before close
    writer.close()
    writer.add_scalar("x", 2.0, 1)  # PyTorch's writer reopens a new file after close()
    writer.close()
    assert sorted(e.value for e in read(writer.get_logdir()).Scalars("x")) == [1.0, 2.0]
