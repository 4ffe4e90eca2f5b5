"""SummaryWriter and FileWriter, as torch.utils.tensorboard.writer, on tensorboard's EventFileWriter."""

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as _s
from ._convert import figure_to_image, make_np
from ._embedding import embedding_info, write_metadata, write_sprite, write_tensors

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes Event / Summary protocol buffers to one event file in `log_dir`, asynchronously (a queue of
    `max_queue` events, flushed at least every `flush_secs` seconds)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()


def _encode_tag(tag):
    # the embedding's folder name: escape what cannot be part of one path component
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


class SummaryWriter:
    """Writes TensorBoard event files in `log_dir` (default runs/<date>_<host><comment>).

    purge_step: when a crashed run restarts at step T, events of steps >= T already in `log_dir` are hidden
    by TensorBoard. max_queue / flush_secs / filename_suffix are passed to the event file writer.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _s.tensorflow_bins().tolist()

    def _get_file_writer(self):
        """The main FileWriter, created again after close()."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def _add(self, summary, global_step=None, walltime=None):
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # ---- scalars

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False, double_precision=False):
        """Log one number (Python number, NumPy scalar or one-element tensor) under `tag`."""
        self._add(
            _s.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision), global_step, walltime
        )

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers in one chart: each key goes to its own run `<log_dir>/<main_tag>_<key>`, under
        the tag `main_tag`."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run = base + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(run)
            if writer is None:
                writer = FileWriter(run, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[run] = writer
            writer.add_summary(_s.scalar(main_tag, value), global_step, walltime)

    def add_custom_scalars(self, layout):
        """Charts of existing scalar tags: {category: {title: ["Multiline" | "Margin", [tags]]}}."""
        self._add(_s.custom_scalars(layout))

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        self._add(_s.custom_scalars({category: {title: ["Multiline", tags]}}))

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        if len(tags) != 3:
            raise AssertionError("a margin chart needs exactly 3 tags, got {}".format(tags))
        self._add(_s.custom_scalars({category: {title: ["Margin", tags]}}))

    # ---- distributions

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """Histogram of `values`; bins: 'tensorflow' (TensorFlow's default exponential edges) or anything
        numpy.histogram accepts (an int, a sequence of edges, 'auto', 'fd', ...)."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(_s.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(
        self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts, global_step=None, walltime=None
    ):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._add(
            _s.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts), global_step, walltime
        )

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None, walltime=None):
        """Precision-recall curve of binary `labels` against `predictions` in [0, 1]."""
        labels, predictions = make_np(labels), make_np(predictions)
        self._add(_s.pr_curve(tag, labels, predictions, num_thresholds, weights), global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag,
        true_positive_counts,
        false_positive_counts,
        true_negative_counts,
        false_negative_counts,
        precision,
        recall,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ):
        self._add(
            _s.pr_curve_raw(
                tag,
                true_positive_counts,
                false_positive_counts,
                true_negative_counts,
                false_negative_counts,
                precision,
                recall,
                num_thresholds,
                weights,
            ),
            global_step,
            walltime,
        )

    # ---- media

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """One image: float values in [0, 1] or uint8 in [0, 255]; dataformats CHW, HWC, HW, WH, ..."""
        self._add(_s.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images tiled into one grid (8 per row); dataformats NCHW, NHWC, ..."""
        self._add(_s.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """Render a matplotlib figure (or a list of them) and log it as an image (needs matplotlib)."""
        fmt = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime, dataformats=fmt)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        self._add(_s.audio(tag, snd_tensor, sample_rate=sample_rate), global_step, walltime)

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        raise NotImplementedError(
            "SummaryWriter.add_video: ember does not encode videos (PyTorch needs moviepy "
            "for it); log frames with add_images instead"
        )

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._add(_s.text(tag, text_string), global_step, walltime)

    # ---- experiments

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """Log one hyperparameter set and its metrics for the HParams dashboard, in the run
        `<log_dir>/<run_name>` (default: the current time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = _s.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w:
            for pb in (exp, ssi, sei):
                w.file_writer.add_summary(pb, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default", metadata_header=None):
        """Write an (N, D) embedding for the projector: <log_dir>/<step:05d>/<tag>/tensors.tsv (+ metadata.tsv,
        sprite.png from (N, C, H, W) label_img) and the run's projector_config.pbtxt."""
        mat = make_np(mat)
        if global_step is None:
            global_step = 0
        subdir = "%s/%s" % (str(global_step).zfill(5), _encode_tag(tag))
        logdir = self._get_file_writer().get_logdir()
        save_path = os.path.join(logdir, subdir)
        if os.path.exists(save_path):
            if not os.path.isdir(save_path):
                raise Exception("Path: `%s` exists, but is a file. Cannot proceed." % save_path)
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            os.makedirs(save_path)
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            write_metadata(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            write_sprite(label_img, save_path)
        write_tensors(mat, save_path)

        from google.protobuf import text_format

        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([embedding_info(metadata, label_img, subdir, global_step, tag)])
        with open(os.path.join(logdir, "projector_config.pbtxt"), "wb") as f:
            f.write(text_format.MessageToString(self._projector_config).encode("utf-8"))

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError(
            "SummaryWriter.add_graph: ember has no tracer (torch.jit.trace) to record a model's graph, so it "
            "cannot write graphs to TensorBoard; log scalars, histograms and images instead"
        )

    def add_onnx_graph(self, prototxt):
        raise NotImplementedError("SummaryWriter.add_onnx_graph: ember does not read ONNX graphs")

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None, global_step=None, walltime=None):
        raise NotImplementedError("SummaryWriter.add_mesh is not implemented in ember")

    def add_image_with_boxes(self, *args, **kwargs):
        raise NotImplementedError(
            "SummaryWriter.add_image_with_boxes is not implemented in ember; draw the boxes "
            "into the image and use add_image"
        )

    # ---- lifetime

    def flush(self):
        """Write everything queued so far to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        """Flush and close every event file (a later add_* opens a new one); closing twice is harmless."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
