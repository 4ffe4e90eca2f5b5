"""Summary protocol buffers (tensorboard's own protos) for SummaryWriter, as torch.utils.tensorboard.summary."""

import io
import wave

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ._convert import convert_to_HWC, encode_png, make_np, to_uint8

__all__ = [
    "scalar",
    "histogram",
    "histogram_raw",
    "make_histogram",
    "image",
    "audio",
    "text",
    "hparams",
    "pr_curve",
    "pr_curve_raw",
    "compute_curve",
    "custom_scalars",
    "tensorflow_bins",
]


def tensorflow_bins():
    """The default histogram bucket edges of TensorFlow / torch.utils.tensorboard: +-1e-12 * 1.1**k up to 1e20,
    and 0 (built by repeated multiplication, as they do, so the edges match bit for bit)."""
    steps = np.full(int(np.ceil(np.log(1e32) / np.log(1.1))) + 2, 1.1)
    steps[0] = 1e-12
    pos = np.cumprod(steps)
    pos = pos[pos < 1e20]
    return np.concatenate([-pos[::-1], [0.0], pos])


def _one_value(value, what):
    array = make_np(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            "Tensor should contain one element (0 dimensions). Was given size: {} and {} dimensions.".format(
                array.size, array.ndim
            )
        )
    return array.item() if what is None else what(array.item())


def scalar(name, value, new_style=False, double_precision=False):
    """A scalar summary: `simple_value` (old style) or a float / double tensor with the scalars plugin."""
    if isinstance(value, (bool, int, float)):
        x = float(value)
    else:
        x = _one_value(value, float)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=x)])
    tensor = (
        TensorProto(double_val=[x], dtype="DT_DOUBLE")
        if double_precision
        else TensorProto(float_val=[x], dtype="DT_FLOAT")
    )
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=tensor, metadata=meta)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    def as_list(x):
        return list(x) if isinstance(x, (list, tuple)) else make_np(x).astype(np.float64).reshape(-1).tolist()

    hist = HistogramProto(
        min=min,
        max=max,
        num=num,
        sum=sum,
        sum_squares=sum_squares,
        bucket_limit=as_list(bucket_limits),
        bucket=as_list(bucket_counts),
    )
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def make_histogram(values, bins, max_bins=None):
    """HistogramProto of `values` binned by numpy.histogram(values, bins): buckets outside the support are
    dropped except one empty bucket on the left, whose right edge is the support's left edge (TensorBoard
    stores only right edges)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        extra = (-len(counts)) % group
        if extra:
            counts = np.concatenate([counts, np.zeros(extra, counts.dtype)])
        counts = counts.reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:
        raise ValueError("The histogram is empty: no value falls inside the bins.")
    start, end = int(nonzero[0]), int(nonzero[-1]) + 1
    counts = counts[start - 1 : end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start : end + 1]
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=values.size,
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


def histogram(name, values, bins, max_bins=None):
    hist = make_histogram(make_np(values).astype(np.float64), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def image(tag, tensor, dataformats="NCHW"):
    """An image summary (PNG): floats are taken as [0, 1], uint8 as [0, 255]."""
    hwc = to_uint8(convert_to_HWC(make_np(tensor), dataformats))
    h, w, c = hwc.shape
    img = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=encode_png(hwc))
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def audio(tag, tensor, sample_rate=44100):
    """A mono 16-bit WAV audio summary of samples in [-1, 1] (clipped)."""
    samples = make_np(tensor).squeeze()
    if samples.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    pcm = (np.clip(samples, -1, 1) * np.iinfo(np.int16).max).astype("<i2")
    with io.BytesIO() as buf:
        with wave.open(buf, "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(sample_rate)
            wav.writeframes(pcm.tobytes())
        data = buf.getvalue()
    snd = Summary.Audio(
        sample_rate=sample_rate,
        num_channels=1,
        length_frames=pcm.shape[-1],
        encoded_audio_string=data,
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=snd)])


def text(tag, text):
    meta = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(
            plugin_name="text", content=TextPluginData(version=0).SerializeToString()
        )
    )
    tensor = TensorProto(
        dtype="DT_STRING",
        string_val=[text.encode("utf_8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)])


def _hparams_summary(tag, **content):
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
    meta = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME, content=data.SerializeToString())
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The three hparams-plugin summaries (experiment, session start, session end) for one run."""
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.metadata import EXPERIMENT_TAG, SESSION_END_INFO_TAG, SESSION_START_INFO_TAG
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    import ember

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(
                "parameter: hparam_domain_discrete[{}] should be a list of same type as hparam_dict[{}].".format(k, k)
            )

    start = SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, bool):
            field, kind = "bool_value", "DATA_TYPE_BOOL"
        elif isinstance(v, (int, float)):
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            field, kind = "string_value", "DATA_TYPE_STRING"
        elif isinstance(v, ember.Tensor):
            field, kind, v = "number_value", "DATA_TYPE_FLOAT64", float(make_np(v).reshape(-1)[0])
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[k], field, v)
        domain = (
            struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in domains[k]]) if k in domains else None
        )
        infos.append(HParamInfo(name=k, type=DataType.Value(kind), domain_discrete=domain))

    experiment = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (
        _hparams_summary(EXPERIMENT_TAG, experiment=experiment),
        _hparams_summary(SESSION_START_INFO_TAG, session_start_info=start),
        _hparams_summary(SESSION_END_INFO_TAG, session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))),
    )


def _pr_summary(tag, data, num_thresholds):
    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="pr_curves", content=content))
    data = np.asarray(data, dtype=np.float32)
    tensor = TensorProto(
        dtype="DT_FLOAT",
        float_val=data.reshape(-1).tolist(),
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=s) for s in data.shape]),
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=tensor)])


def compute_curve(labels, predictions, num_thresholds=127, weights=None):
    """Rows tp, fp, tn, fn, precision, recall at `num_thresholds` thresholds evenly spaced in [0, 1] (the
    tensorboard pr_curve plugin's definition)."""
    weights = 1.0 if weights is None else make_np(weights).astype(np.float64)
    buckets = np.floor(make_np(predictions).astype(np.float64) * (num_thresholds - 1)).astype(np.int32)
    positive = make_np(labels).astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=positive * weights)
    fp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=(1.0 - positive) * weights)
    tp = np.cumsum(tp_b[::-1])[::-1]
    fp = np.cumsum(fp_b[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    num_thresholds = min(num_thresholds, 127)  # as PyTorch: larger values are clamped
    return _pr_summary(tag, compute_curve(labels, predictions, num_thresholds, weights), num_thresholds)


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    num_thresholds = min(num_thresholds, 127)
    rows = [np.asarray(x) if isinstance(x, (list, tuple)) else make_np(x) for x in (tp, fp, tn, fn, precision, recall)]
    data = np.stack([r.astype(np.float64).reshape(-1) for r in rows])
    return _pr_summary(tag, data, num_thresholds)


def custom_scalars(layout):
    """The custom_scalars plugin's layout: {category: {chart title: ["Multiline" | "Margin", [tags]]}}."""
    categories = []
    for category, charts in layout.items():
        chart_pbs = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError(
                        "a Margin chart needs exactly 3 tags (value, lower, upper), got {}".format(tags)
                    )
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
                chart_pbs.append(layout_pb2.Chart(title=title, margin=layout_pb2.MarginChartContent(series=[series])))
            else:
                chart_pbs.append(layout_pb2.Chart(title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=chart_pbs))
    payload = layout_pb2.Layout(category=categories).SerializeToString()
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="custom_scalars"))
    tensor = TensorProto(dtype="DT_STRING", string_val=[payload], tensor_shape=TensorShapeProto())
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=tensor, metadata=meta)])
