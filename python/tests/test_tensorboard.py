"""ember.utils.tensorboard: event files written by SummaryWriter, read back with tensorboard's own readers."""

import glob
import importlib
import io
import os
import sys

import numpy as np
import pytest

import ember

tb = pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader  # noqa: E402

from ember.utils.tensorboard import (
    SummaryWriter,  # noqa: E402
    _convert,  # noqa: E402
)

PIL_Image = pytest.importorskip("PIL.Image")


def read_run(path):
    acc = EventAccumulator(
        str(path), size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0, "audio": 0}
    )
    acc.Reload()
    return acc


def events_of(path):
    files = sorted(glob.glob(os.path.join(str(path), "events.out.tfevents.*")))
    assert len(files) == 1, files
    return list(LegacyEventFileLoader(files[0]).Load())


def decode_png(encoded):
    return np.asarray(PIL_Image.open(io.BytesIO(encoded)))


def test_import_error_without_tensorboard(monkeypatch):
    for name in [n for n in sys.modules if n.startswith("ember.utils.tensorboard")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    with pytest.raises(ImportError, match=r"^TensorBoard logging requires TensorBoard version 1\.15 or above$"):
        importlib.import_module("ember.utils.tensorboard")


def test_import_error_with_old_tensorboard(monkeypatch):
    for name in [n for n in sys.modules if n.startswith("ember.utils.tensorboard")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(tb, "__version__", "1.14.0")
    with pytest.raises(ImportError, match="requires TensorBoard version 1.15 or above"):
        importlib.import_module("ember.utils.tensorboard")


def test_scalars_exact(tmp_path):
    values = [
        0.5,
        3,
        ember.tensor(1.25),
        ember.tensor([-2.0]),
        np.float64(0.375),
        ember.tensor(7, dtype=ember.int64),
        ember.tensor(0.1, dtype=ember.bfloat16),
    ]
    with SummaryWriter(tmp_path) as w:
        for step, v in enumerate(values):
            w.add_scalar("loss", v, step, walltime=100.0 + step)
        w.add_scalar("double", 0.1, 5, new_style=True, double_precision=True)
        w.add_scalar("single", ember.tensor([0.1], dtype=ember.float64), 6, new_style=True)
    acc = read_run(tmp_path)
    got = acc.Scalars("loss")
    expected = [0.5, 3.0, 1.25, -2.0, 0.375, 7.0, float(np.float32(0.10009765625))]
    assert [e.step for e in got] == list(range(len(values)))
    assert [e.value for e in got] == expected
    assert [e.wall_time for e in got] == [100.0 + i for i in range(len(values))]
    (double,) = acc.Tensors("double")
    assert double.step == 5 and list(double.tensor_proto.double_val) == [0.1]
    assert acc.SummaryMetadata("double").plugin_data.plugin_name == "scalars"
    (single,) = acc.Tensors("single")
    assert list(single.tensor_proto.float_val) == [np.float32(0.1)]


def test_scalar_needs_one_element(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(AssertionError, match="Tensor should contain one element"):
            w.add_scalar("x", ember.ones(2), 0)


def test_add_scalars_one_run_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("train/loss", {"a": step * 1.0, "b": step * 2.0}, step)
    for key, scale in (("a", 1.0), ("b", 2.0)):
        acc = read_run(tmp_path / ("train_loss_" + key))
        assert [(e.step, e.value) for e in acc.Scalars("train/loss")] == [(s, s * scale) for s in range(3)]


def check_histogram_value(h, values):
    assert h.num == values.size
    assert h.min == values.min() and h.max == values.max()
    assert h.sum == pytest.approx(values.sum(), rel=1e-12)
    assert h.sum_squares == pytest.approx(values.dot(values), rel=1e-12)
    assert sum(h.bucket) == values.size


def test_histogram_tensorflow_bins(tmp_path, rng):
    x = rng.standard_normal((40, 25)).astype(np.float32)
    t = ember.from_numpy(x).t()  # a non-contiguous view
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", t, 3)
    (ev,) = read_run(tmp_path).Histograms("w")
    h = ev.histogram_value
    v = x.T.astype(np.float64).reshape(-1)
    check_histogram_value(h, v)
    limits, counts = np.array(h.bucket_limit), np.array(h.bucket)
    # every right edge is a TensorFlow edge (+-1e-12 * 1.1**k or 0), the counts are the values in [left, right)
    edges = 1e-12 * 1.1 ** np.arange(800.0)
    for lim in limits:
        assert lim == 0 or np.min(np.abs(np.abs(lim) / edges - 1)) < 1e-9
    assert counts[0] == np.count_nonzero(v < limits[0])
    for i in range(1, len(limits)):
        assert counts[i] == np.count_nonzero((v >= limits[i - 1]) & (v < limits[i]))
    assert limits[-1] > v.max() and counts[-1] > 0


@pytest.mark.parametrize("bins", [10, "auto", [-4.0, -1.0, 0.0, 0.5, 4.0]])
def test_histogram_numpy_bins(tmp_path, rng, bins):
    x = rng.standard_normal(500)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("h", ember.from_numpy(x), 0, bins=bins)
    h = read_run(tmp_path).Histograms("h")[0].histogram_value
    check_histogram_value(h, x)
    counts, edges = np.histogram(x, bins=bins)
    nz = np.flatnonzero(counts)
    lo, hi = nz[0], nz[-1] + 1
    expected_counts = ([counts[lo - 1]] if lo > 0 else [0]) + counts[lo:hi].tolist()
    assert list(h.bucket) == expected_counts
    np.testing.assert_array_equal(h.bucket_limit, edges[lo : hi + 1])


def test_histogram_max_bins_and_raw(tmp_path, rng):
    x = rng.uniform(0, 1, 1000)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("h", x, 0, bins=20, max_bins=5)
        w.add_histogram_raw(
            "raw",
            min=0.0,
            max=3.0,
            num=6,
            sum=9.0,
            sum_squares=17.0,
            bucket_limits=[1.0, 2.0, 3.0],
            bucket_counts=[1, 2, 3],
            global_step=1,
        )
        with pytest.raises(ValueError, match="len\\(bucket_limits\\) != len\\(bucket_counts\\)"):
            w.add_histogram_raw("raw", 0, 1, 1, 1, 1, [1.0], [1, 2])
        with pytest.raises(ValueError, match="no element"):
            w.add_histogram("empty", ember.zeros(0), 0)
    acc = read_run(tmp_path)
    h = acc.Histograms("h")[0].histogram_value
    counts, edges = np.histogram(x, bins=20)
    assert list(h.bucket) == [0] + counts.reshape(5, 4).sum(axis=1).tolist()
    np.testing.assert_array_equal(h.bucket_limit, edges[::4])
    raw = acc.Histograms("raw")[0].histogram_value
    assert (raw.min, raw.max, raw.num, raw.sum, raw.sum_squares) == (0.0, 3.0, 6, 9.0, 17.0)
    assert list(raw.bucket_limit) == [1.0, 2.0, 3.0] and list(raw.bucket) == [1, 2, 3]


def to_u8(a):
    return np.clip(a.astype(np.float32) * 255.0, 0, 255).astype(np.uint8)


def test_images_formats_and_pixels(tmp_path, rng):
    chw = rng.uniform(0, 1, (3, 7, 9)).astype(np.float32)
    hwc_u8 = rng.integers(0, 256, (5, 6, 3)).astype(np.uint8)
    hw = rng.uniform(0, 1, (4, 5))
    rgba = rng.uniform(0, 1, (6, 4, 4)).astype(np.float32)  # WHC: exercises an arbitrary letter order
    with SummaryWriter(tmp_path) as w:
        w.add_image("chw", ember.from_numpy(chw), 0)
        w.add_image("hwc", ember.from_numpy(hwc_u8), 0, dataformats="HWC")
        w.add_image("hw", ember.from_numpy(hw), 0, dataformats="HW")
        w.add_image("whc", ember.from_numpy(rgba).transpose(0, 1), 0, dataformats="HWC")
        w.add_image("gray", ember.from_numpy(hw[None]), 0, dataformats="CHW")
        w.add_image("bf16", ember.from_numpy(chw).to(ember.bfloat16), 0)
        w.add_image("over", ember.from_numpy(chw * 4 - 2), 0)
    acc = read_run(tmp_path)

    def pixels(tag, h, w, c):
        (ev,) = acc.Images(tag)
        assert (ev.height, ev.width) == (h, w)
        img = decode_png(ev.encoded_image_string)
        assert img.shape == (h, w, c)
        return img

    np.testing.assert_array_equal(pixels("chw", 7, 9, 3), to_u8(chw.transpose(1, 2, 0)))
    np.testing.assert_array_equal(pixels("hwc", 5, 6, 3), hwc_u8)
    np.testing.assert_array_equal(pixels("hw", 4, 5, 3), np.repeat(to_u8(hw)[:, :, None], 3, axis=2))
    np.testing.assert_array_equal(pixels("whc", 4, 6, 4), to_u8(rgba.transpose(1, 0, 2)))
    np.testing.assert_array_equal(pixels("gray", 4, 5, 3), np.repeat(to_u8(hw)[:, :, None], 3, axis=2))
    bf = np.asarray(ember.from_numpy(chw).to(ember.bfloat16).float().numpy())
    np.testing.assert_array_equal(pixels("bf16", 7, 9, 3), to_u8(bf.transpose(1, 2, 0)))
    np.testing.assert_array_equal(pixels("over", 7, 9, 3), to_u8((chw * 4 - 2).transpose(1, 2, 0)))


@pytest.mark.parametrize("n", [5, 11])
def test_add_images_grid(tmp_path, rng, n):
    batch = rng.uniform(0, 1, (n, 1, 3, 4)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_images("b", ember.from_numpy(batch), 0)
        w.add_images("nhwc", ember.from_numpy(batch.transpose(0, 2, 3, 1).copy()), 0, dataformats="NHWC")
    acc = read_run(tmp_path)
    cols = min(n, 8)
    rows = -(-n // cols)
    expected = np.zeros((rows * 3, cols * 4, 3), np.uint8)
    for i in range(n):
        r, c = divmod(i, cols)
        expected[r * 3 : (r + 1) * 3, c * 4 : (c + 1) * 4] = to_u8(batch[i, 0])[:, :, None]
    for tag in ("b", "nhwc"):
        (ev,) = acc.Images(tag)
        assert (ev.height, ev.width) == (rows * 3, cols * 4)
        np.testing.assert_array_equal(decode_png(ev.encoded_image_string), expected)


def test_image_format_errors(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(AssertionError, match="size of input tensor and input format are different"):
            w.add_image("x", ember.rand(3, 4, 5), 0, dataformats="HW")
        with pytest.raises(AssertionError, match="same dimension shorthand twice"):
            w.add_image("x", ember.rand(3, 4, 5), 0, dataformats="CHH")
        with pytest.raises(NotImplementedError, match="numpy array or an ember Tensor"):
            w.add_image("x", [[0.0]], 0, dataformats="HW")


@pytest.mark.parametrize("pillow", [True, False])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_png_encoder(monkeypatch, rng, channels, pillow):
    img = rng.integers(0, 256, (5, 7, channels)).astype(np.uint8)
    if not pillow:
        monkeypatch.setattr(_convert, "_PILImage", None)
    data = _convert.encode_png(img)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    decoded = decode_png(data)
    np.testing.assert_array_equal(decoded.reshape(5, 7, channels), img)
    with pytest.raises(ValueError, match="encode_png"):
        _convert.encode_png(img.astype(np.float32))


def test_add_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    fig.add_subplot(111).plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 0)
    (ev,) = read_run(tmp_path).Images("fig")
    assert (ev.width, ev.height) == (100, 50)


def test_text_audio_and_custom_scalars(tmp_path):
    from tensorboard.plugins.custom_scalar import layout_pb2

    samples = np.linspace(-1, 1, 11).astype(np.float32)
    layout = {"Losses": {"train": ["Multiline", ["loss/a", "loss/b"]], "band": ["Margin", ["m", "lo", "hi"]]}}
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "héllo **world**", 2)
        w.add_audio("snd", ember.from_numpy(samples), 0, sample_rate=8000)
        w.add_custom_scalars(layout)
        with pytest.raises(AssertionError, match="exactly 3 tags"):
            w.add_custom_scalars_marginchart(["a", "b"])
    acc = read_run(tmp_path)
    (text,) = acc.Tensors("notes/text_summary")
    assert text.step == 2 and text.tensor_proto.string_val == ["héllo **world**".encode()]
    assert acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"
    (snd,) = acc.Audio("snd")
    assert snd.sample_rate == 8000 and snd.length_frames == 11 and snd.content_type == "audio/wav"
    pcm = np.frombuffer(snd.encoded_audio_string[44:], dtype="<i2")
    np.testing.assert_array_equal(pcm, (samples * 32767).astype(np.int16))
    (cfg,) = acc.Tensors("custom_scalars__config__")
    parsed = layout_pb2.Layout.FromString(cfg.tensor_proto.string_val[0])
    (cat,) = parsed.category
    assert cat.title == "Losses"
    assert [c.title for c in cat.chart] == ["train", "band"]
    assert list(cat.chart[0].multiline.tag) == ["loss/a", "loss/b"]
    s = cat.chart[1].margin.series[0]
    assert (s.value, s.lower, s.upper) == ("m", "lo", "hi")


def test_add_hparams(tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2

    with SummaryWriter(tmp_path) as w:
        w.add_hparams(
            {"lr": 0.01, "opt": "sgd", "nesterov": True, "layers": ember.tensor(3.0), "skip": None},
            {"hparam/acc": 0.75},
            hparam_domain_discrete={"opt": ["sgd", "adam"]},
            run_name="trial",
        )
        with pytest.raises(TypeError, match="should be dictionary"):
            w.add_hparams([("lr", 1)], {})
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool"):
            w.add_hparams({"bad": [1]}, {})
        with pytest.raises(TypeError, match=r"hparam_domain_discrete\[opt\]"):
            w.add_hparams({"opt": "sgd"}, {}, hparam_domain_discrete={"opt": [1, 2]})
    acc = read_run(tmp_path / "trial")
    content = acc.PluginTagToContent("hparams")
    start = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_start_info"])
    hp = start.session_start_info.hparams
    assert hp["lr"].number_value == 0.01 and hp["opt"].string_value == "sgd" and hp["nesterov"].bool_value
    assert hp["layers"].number_value == 3.0 and "skip" not in hp
    exp = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"]).experiment
    assert [i.name for i in exp.hparam_infos] == ["lr", "opt", "nesterov", "layers"]
    assert [v.string_value for v in exp.hparam_infos[1].domain_discrete.values] == ["sgd", "adam"]
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/acc"]
    assert [e.value for e in acc.Scalars("hparam/acc")] == [0.75]


def test_add_pr_curve(tmp_path, rng):
    labels = rng.integers(0, 2, 200)
    preds = rng.uniform(0, 1, 200).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_pr_curve("pr", ember.from_numpy(labels), ember.from_numpy(preds), 1, num_thresholds=11)
        w.add_pr_curve_raw("raw", [3, 2], [1, 0], [0, 1], [0, 1], [0.75, 1.0], [1.0, 0.67], 2, num_thresholds=2)
    acc = read_run(tmp_path)
    (ev,) = acc.Tensors("pr")
    data = np.array(ev.tensor_proto.float_val, np.float32).reshape(6, 11)
    assert [d.size for d in ev.tensor_proto.tensor_shape.dim] == [6, 11]
    bucket = np.floor(preds.astype(np.float64) * 10)
    tp = np.array([np.sum((bucket >= i) & (labels == 1)) for i in range(11)], np.float64)
    fp = np.array([np.sum((bucket >= i) & (labels == 0)) for i in range(11)], np.float64)
    fn = labels.sum() - tp
    tn = (labels == 0).sum() - fp
    expected = np.stack([tp, fp, tn, fn, tp / np.maximum(1e-7, tp + fp), tp / np.maximum(1e-7, tp + fn)])
    np.testing.assert_array_equal(data, expected.astype(np.float32))
    (raw,) = acc.Tensors("raw")
    np.testing.assert_array_equal(
        np.array(raw.tensor_proto.float_val).reshape(6, 2),
        np.array([[3, 2], [1, 0], [0, 1], [0, 1], [0.75, 1.0], [1.0, 0.67]], np.float32),
    )


def test_add_embedding(tmp_path, rng):
    from google.protobuf import text_format
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

    mat = rng.standard_normal((7, 3)).astype(np.float32)
    label_img = rng.uniform(0, 1, (7, 3, 4, 5)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(
            ember.from_numpy(mat),
            metadata=["a", "b", "c", "d", "e", "f", "g"],
            label_img=ember.from_numpy(label_img),
            global_step=3,
            tag="feat/x",
        )
        w.add_embedding(mat[:2], metadata=[["p", 1], ["q", 2]], metadata_header=["name", "id"])
        with pytest.raises(AssertionError, match="#labels should equal with #data points"):
            w.add_embedding(mat, metadata=["x"], global_step=9)
        with pytest.raises(AssertionError, match="mat should be 2D"):
            w.add_embedding(ember.zeros(2, 2, 2), global_step=10)
    d1 = tmp_path / "00003" / "feat%2fx"
    np.testing.assert_array_equal(np.loadtxt(d1 / "tensors.tsv", dtype=np.float32, delimiter="\t"), mat)
    assert (d1 / "metadata.tsv").read_text() == "a\nb\nc\nd\ne\nf\ng\n"
    sprite = decode_png((d1 / "sprite.png").read_bytes())
    assert sprite.shape == (15, 15, 3)  # 3 x 3 grid of 4 x 5 images, padded to a square
    np.testing.assert_array_equal(sprite[4:8, 0:5], to_u8(label_img[3].transpose(1, 2, 0)))
    np.testing.assert_array_equal(sprite[12:, :], 0)
    d2 = tmp_path / "00000" / "default"
    assert (d2 / "metadata.tsv").read_text() == "name\tid\np\t1\nq\t2\n"
    cfg = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(), ProjectorConfig())
    assert [e.tensor_name for e in cfg.embeddings] == ["feat/x:00003", "default:00000"]
    assert cfg.embeddings[0].tensor_path == "00003/feat%2fx/tensors.tsv"
    assert cfg.embeddings[0].metadata_path == "00003/feat%2fx/metadata.tsv"
    assert cfg.embeddings[0].sprite.image_path == "00003/feat%2fx/sprite.png"
    assert list(cfg.embeddings[0].sprite.single_image_dim) == [5, 4]
    assert cfg.embeddings[1].sprite.image_path == ""


def test_constructor_options(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1", filename_suffix=".v2")
    w.add_scalar("x", 1.0, 0)
    w.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_" + socket.gethostname() + "_lr0.1")
    assert w.get_logdir() == os.path.join("runs", run)
    (name,) = os.listdir(tmp_path / "runs" / run)
    assert name.startswith("events.out.tfevents.") and name.endswith(".v2")

    with SummaryWriter(tmp_path / "purge", purge_step=5) as w:
        w.add_scalar("x", 2.0, 5)
    events = events_of(tmp_path / "purge")
    assert events[1].step == 5 and events[1].file_version == "brain.Event:2"
    assert events[2].step == 5 and events[2].session_log.status == events[2].session_log.START
    assert events[3].summary.value[0].simple_value == 2.0


def test_flush_close_reopen(tmp_path):
    w = SummaryWriter(tmp_path, max_queue=1000, flush_secs=10000)
    w.add_scalar("x", 1.0, 0)
    w.flush()
    assert [e.value for e in read_run(tmp_path).Scalars("x")] == [1.0]
    w.close()
    w.close()  # a second close is harmless
    w.add_scalar("x", 2.0, 1)  # writes to a new event file
    w.close()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) == 2
    with SummaryWriter(tmp_path / "ctx") as w2:
        w2.add_scalar("y", 3.0, 0)
    assert w2.all_writers is None
    assert [e.value for e in read_run(tmp_path / "ctx").Scalars("y")] == [3.0]


def test_add_graph_not_supported(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(NotImplementedError, match="ember has no tracer"):
            w.add_graph(ember.nn.Linear(2, 2), ember.zeros(1, 2))
        with pytest.raises(NotImplementedError, match="add_video"):
            w.add_video("v", ember.zeros(1, 1, 3, 2, 2))


@pytest.mark.skipif(not ember.cuda.is_available(), reason="no CUDA device")
def test_cuda_tensors(tmp_path, rng):
    x = rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)
    t = ember.from_numpy(x).to("cuda")
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("s", t.sum(), 0)
        w.add_histogram("h", t, 0, bins=7)
        w.add_image("i", t, 0)
    acc = read_run(tmp_path)
    assert acc.Scalars("s")[0].value == pytest.approx(float(x.sum()), rel=1e-6)
    check_histogram_value(acc.Histograms("h")[0].histogram_value, x.astype(np.float64).reshape(-1))
    np.testing.assert_array_equal(decode_png(acc.Images("i")[0].encoded_image_string), to_u8(x.transpose(1, 2, 0)))
