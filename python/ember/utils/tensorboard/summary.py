"""The Summary protocol buffers SummaryWriter writes, one function per kind, as TensorBoard's
plugins define them (scalars, histograms, images, text, hyperparameters)."""
from __future__ import annotations

import io
from typing import Any

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.hparams import api_pb2
from tensorboard.plugins.hparams import metadata as hparams_metadata
from tensorboard.plugins.hparams import plugin_data_pb2 as hparams_data
from tensorboard.plugins.text import plugin_data_pb2 as text_data


def to_numpy(x: Any) -> np.ndarray:
    """An Ember tensor (detached, on the host), a NumPy array, or a Python number or list."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def scalar(tag: str, value: Any, *, double_precision: bool = False) -> Summary:
    array = to_numpy(value).squeeze()
    if array.ndim != 0:
        raise ValueError(f"add_scalar: '{tag}' needs a single number, got an array of shape {list(to_numpy(value).shape)}")
    if double_precision:
        tensor = TensorProto(dtype="DT_DOUBLE", double_val=[float(array)], tensor_shape=TensorShapeProto())
        metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
        return Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=metadata)])
    return Summary(value=[Summary.Value(tag=tag, simple_value=float(array))])


def tensorflow_bucket_limits() -> np.ndarray:
    """TensorFlow's default histogram buckets, which PyTorch's bins="tensorflow" takes: edges growing
    by 10% from 1e-12 to 1e20, mirrored below 0."""
    positive, v = [], 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    positive.append(np.finfo(np.float64).max)  # NB: the last bucket holds everything beyond 1e20
    return np.array([-x for x in reversed(positive)] + [0.0] + positive)


def histogram(tag: str, values: Any, bins: Any = "tensorflow", max_bins: int | None = None) -> Summary:
    array = to_numpy(values).astype(np.float64).reshape(-1)
    finite = array[np.isfinite(array)]
    if finite.size != array.size:
        raise ValueError(f"add_histogram: '{tag}' holds {array.size - finite.size} inf or NaN values")
    if array.size == 0:
        raise ValueError(f"add_histogram: '{tag}' is empty")
    edges = tensorflow_bucket_limits() if isinstance(bins, str) and bins == "tensorflow" else bins
    counts, limits = np.histogram(array, bins=edges)
    if max_bins is not None and counts.size > max_bins:  # merge neighbours, as PyTorch's
        group = -(-counts.size // max_bins)
        pad = (-counts.size) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    # Buckets are given by their right edges; the empty ones at both ends are dropped, keeping one
    # empty bucket on each side so the first bucket's left edge is known.
    nonzero = np.flatnonzero(counts)
    first, last = max(nonzero[0] - 1, 0), min(nonzero[-1] + 1, counts.size - 1)
    proto = HistogramProto(min=float(array.min()), max=float(array.max()), num=int(array.size),
                           sum=float(array.sum()), sum_squares=float(np.dot(array, array)),
                           bucket_limit=[float(x) for x in limits[first + 1:last + 2]],
                           bucket=[float(x) for x in counts[first:last + 1]])
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def _to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """An image as [H, W, 3] or [H, W, 1] from PyTorch's dataformats ("CHW", "HWC", "HW", ...)."""
    dataformats = dataformats.upper()
    if len(dataformats) != array.ndim or sorted(dataformats) != sorted(set(dataformats)):
        raise ValueError(f"add_image: dataformats '{dataformats}' does not fit an array of shape {list(array.shape)}")
    if "C" not in dataformats:
        array, dataformats = array[..., None], dataformats + "C"
    hwc = array.transpose([dataformats.index(c) for c in "HWC"])
    if hwc.shape[2] not in (1, 3, 4):
        raise ValueError(f"add_image: an image has 1, 3 or 4 channels, got {hwc.shape[2]} (shape {list(array.shape)})")
    return hwc


def _grid(images: np.ndarray) -> np.ndarray:
    """[N, H, W, C] images tiled into one, as torchvision's make_grid does (8 per row at most)."""
    n, h, w, c = images.shape
    cols = min(n, 8)
    rows = -(-n // cols)
    grid = np.zeros((rows * h, cols * w, c), dtype=images.dtype)
    for i in range(n):
        r, col = divmod(i, cols)
        grid[r * h:(r + 1) * h, col * w:(col + 1) * w] = images[i]
    return grid


def _encoded(tag: str, hwc: np.ndarray) -> Summary:
    from PIL import Image  # a dependency of the tensorboard package
    if hwc.dtype != np.uint8:  # floats in [0, 1], as PyTorch's; values beyond are clipped
        hwc = (np.clip(hwc.astype(np.float64), 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    height, width, channels = hwc.shape
    buffer = io.BytesIO()
    Image.fromarray(hwc[..., 0] if channels == 1 else hwc).save(buffer, format="PNG")
    image = Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue())
    return Summary(value=[Summary.Value(tag=tag, image=image)])


def image(tag: str, tensor: Any, dataformats: str = "CHW") -> Summary:
    return _encoded(tag, _to_hwc(to_numpy(tensor), dataformats))


def images(tag: str, tensor: Any, dataformats: str = "NCHW") -> Summary:
    array, dataformats = to_numpy(tensor), dataformats.upper()
    if "N" not in dataformats or len(dataformats) != array.ndim:
        raise ValueError(f"add_images: dataformats '{dataformats}' does not fit an array of shape {list(array.shape)}")
    batch = np.moveaxis(array, dataformats.index("N"), 0)
    rest = dataformats.replace("N", "")
    return _encoded(tag, _grid(np.stack([_to_hwc(x, rest) for x in batch])))


def text(tag: str, text_string: str) -> Summary:
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=text_data.TextPluginData(version=0).SerializeToString()))
    tensor = TensorProto(dtype="DT_STRING", string_val=[str(text_string).encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=tensor)])


def _hparams_summary(tag: str, plugin_data: hparams_data.HParamsPluginData) -> Summary:
    metadata = hparams_metadata.create_summary_metadata(plugin_data)
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])


def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None):
    """The experiment, session-start and session-end summaries of one run (the hparams plugin)."""
    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("add_hparams: hparam_dict and metric_dict must be dicts")
    domains = hparam_domain_discrete or {}
    start = hparams_data.SessionStartInfo()
    infos = []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        if hasattr(value, "item"):  # a 0-dim tensor or NumPy scalar
            value = value.item()
        info = api_pb2.HParamInfo(name=name)
        if isinstance(value, bool):
            start.hparams[name].bool_value = value
            info.type = api_pb2.DATA_TYPE_BOOL
        elif isinstance(value, (int, float)):
            start.hparams[name].number_value = float(value)
            info.type = api_pb2.DATA_TYPE_FLOAT64
        elif isinstance(value, str):
            start.hparams[name].string_value = value
            info.type = api_pb2.DATA_TYPE_STRING
        else:
            raise ValueError(f"add_hparams: '{name}' is a {type(value).__name__}; values must be bool, int, float, "
                             "str or a 0-dim tensor")
        if name in domains:
            info.domain_discrete.extend([v if isinstance(v, (bool, int, float, str)) else str(v)
                                         for v in domains[name]])
        infos.append(info)
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=[
        api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict])
    version = hparams_metadata.PLUGIN_DATA_VERSION
    return (_hparams_summary(hparams_metadata.EXPERIMENT_TAG,
                             hparams_data.HParamsPluginData(experiment=experiment, version=version)),
            _hparams_summary(hparams_metadata.SESSION_START_INFO_TAG,
                             hparams_data.HParamsPluginData(session_start_info=start, version=version)),
            _hparams_summary(hparams_metadata.SESSION_END_INFO_TAG,
                             hparams_data.HParamsPluginData(session_end_info=hparams_data.SessionEndInfo(
                                 status=api_pb2.STATUS_SUCCESS), version=version)))

