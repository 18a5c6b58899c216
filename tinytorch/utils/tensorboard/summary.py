"""Summary protos as PyTorch's ``torch.utils.tensorboard.summary`` builds them: scalars, histograms,
images, text and hyperparameters, in the ``tensorboard`` package's own proto classes."""
from __future__ import annotations

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._png import convert_to_hwc, encode_png, to_numpy, to_uint8


def _scalar_value(x) -> float:
    arr = to_numpy(x).squeeze()
    if arr.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} "
                             f"and {arr.ndim} dimensions.")
    return float(arr)


def scalar(name: str, value, double_precision: bool = False, new_style: bool = False) -> Summary:
    """A scalar: ``simple_value`` (the classic form), or a scalars-plugin tensor with ``new_style``."""
    value = _scalar_value(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    tensor = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
              else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=tensor, metadata=meta)])


def tensorflow_bins() -> list:
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-b for b in reversed(pos)] + [0] + pos


def histogram(name: str, values, bins, max_bins=None) -> Summary:
    values = to_numpy(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge neighbouring buckets, the last group padded with empty ones
        group = len(counts) // max_bins  # as PyTorch: a whole number of buckets per group
        pad = (-len(counts)) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(1)
        limits = np.concatenate([limits[:-1][::group], limits[-1:]])
    # keep the buckets from the first non-empty one to the last, with one empty bucket before them
    nonzero = np.flatnonzero(counts)
    first, last = int(nonzero[0]), int(nonzero[-1])
    if first > 0:
        counts, limits = counts[first - 1:last + 1], limits[first:last + 2]
    else:
        counts, limits = np.concatenate([[0], counts[:last + 1]]), limits[:last + 2]
    hist = HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def image(tag: str, tensor, dataformats: str = "NCHW") -> Summary:
    img = to_uint8(convert_to_hwc(to_numpy(tensor), dataformats))
    h, w, c = img.shape
    summary_image = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=encode_png(img))
    return Summary(value=[Summary.Value(tag=tag, image=summary_image)])


def figure_to_image(figures, close: bool = True) -> np.ndarray:
    """Matplotlib figure(s) rendered to CHW (or NCHW for a list) uint8 RGB arrays."""
    try:
        import matplotlib.pyplot as plt
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as e:
        raise ImportError("add_figure needs matplotlib: pip install matplotlib") from e

    def render(figure) -> np.ndarray:
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba(), dtype=np.uint8)
        if close:
            plt.close(figure)
        return rgba[:, :, :3].transpose(2, 0, 1).copy()

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def text(tag: str, text_string: str) -> Summary:
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)])


def _hparams_summary(tag: str, **content) -> Summary:
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    data = HParamsPluginData(version=0, **content).SerializeToString()
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="hparams", content=data))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete=None):
    """The hparams plugin's three summaries: the experiment, the session's start (values), its end."""
    from google.protobuf.struct_pb2 import ListValue, Struct  # noqa: F401
    from tensorboard.plugins.hparams.api_pb2 import (DataType, Experiment, HParamInfo, MetricInfo, MetricName,
                                                     Status)
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionary.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    for k, v in hparam_domain_discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    start, infos = SessionStartInfo(), []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, bool):
            start.hparams[k].bool_value, kind = v, "DATA_TYPE_BOOL"
        elif isinstance(v, (int, float)):
            start.hparams[k].number_value, kind = v, "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            start.hparams[k].string_value, kind = v, "DATA_TYPE_STRING"
        elif hasattr(v, "detach"):
            start.hparams[k].number_value, kind = float(to_numpy(v).reshape(-1)[0]), "DATA_TYPE_FLOAT64"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        info = HParamInfo(name=k, type=DataType.Value(kind))
        if k in hparam_domain_discrete:
            values = ListValue()
            values.extend(hparam_domain_discrete[k])
            info.domain_discrete.CopyFrom(values)
        infos.append(info)
    experiment = Experiment(hparam_infos=infos,
                            metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (_hparams_summary("_hparams_/experiment", experiment=experiment),
            _hparams_summary("_hparams_/session_start_info", session_start_info=start),
            _hparams_summary("_hparams_/session_end_info",
                             session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
