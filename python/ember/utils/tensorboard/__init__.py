"""ember.utils.tensorboard, as torch.utils.tensorboard: SummaryWriter writes TensorBoard event files.

Like PyTorch it builds on the `tensorboard` package (its event-file writer and summary protobufs); without it
the import fails with PyTorch's message."""

import re

try:
    import tensorboard
except ImportError as e:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from e


def _version_tuple(v):
    m = re.match(r"(\d+)\.(\d+)", str(v))
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


if not hasattr(tensorboard, "__version__") or _version_tuple(tensorboard.__version__) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402,F401

from .writer import FileWriter, SummaryWriter  # noqa: E402,F401

__all__ = ["FileWriter", "SummaryWriter", "RecordWriter"]
