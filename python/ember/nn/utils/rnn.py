"""Packed sequences for the recurrent layers, as torch.nn.utils.rnn. The packing and padding are single ember ops
(boolean-mask indexing in time-major order), not Python loops over time."""

from collections import namedtuple

from ... import _C
from ..._C import Tensor

_PackedSequenceBase = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """data: the non-padded elements in time-major order; batch_sizes: how many sequences are still running at
    each time step (a CPU int64 tensor); sorted_indices/unsorted_indices: the permutation to length order."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _invert_permutation(permutation):
    output = _C.empty_like(permutation)
    output.scatter_(0, permutation, _C.arange(0, permutation.numel(), device=permutation.device))
    return output


def _lengths(lengths):
    if isinstance(lengths, Tensor):
        return lengths.to(_C.int64).cpu()
    return _C.tensor(list(lengths), dtype=_C.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    lengths = _lengths(lengths)
    if enforce_sorted:
        if lengths.numel() > 1 and bool((lengths[:-1] < lengths[1:]).any()):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                "sidestep this requirement if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        lengths, sorted_indices = _C.sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices.to(input.device))
    if batch_first:
        input = input.transpose(0, 1)
    if lengths.numel() and int(lengths.min()) <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    steps = int(lengths.max()) if lengths.numel() else 0
    if steps > input.size(0):
        raise RuntimeError(
            "Expected sequence length to be larger than or equal to the largest length ({}), got {}".format(
                steps, input.size(0)
            )
        )
    mask = _C.arange(steps).unsqueeze(1) < lengths.unsqueeze(0)  # [T, B]: element (t, b) exists
    data = input[:steps][mask.to(input.device)]
    batch_sizes = mask.sum(1)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    data, batch_sizes, sorted_indices, unsorted_indices = sequence
    steps, batch = batch_sizes.numel(), int(batch_sizes[0]) if batch_sizes.numel() else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but "
                "got total_length={} and max sequence length being {}".format(total_length, steps)
            )
        steps_out = total_length
    else:
        steps_out = steps
    mask = batch_sizes.unsqueeze(1) > _C.arange(batch).unsqueeze(0)  # [T, B]
    out = _C.full((steps_out, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    region = out[:steps]
    region[mask.to(data.device)] = data
    lengths = mask.sum(0)
    if unsorted_indices is not None:
        out = out.index_select(1, unsorted_indices)
        lengths = lengths.index_select(0, unsorted_indices.cpu())
    if batch_first:
        out = out.transpose(0, 1)
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    out = _C.full(
        (max_len, len(sequences)) + trailing, padding_value, dtype=sequences[0].dtype, device=sequences[0].device
    )
    for i, s in enumerate(sequences):
        n = s.size(0)
        if padding_side == "right":
            out[:n, i] = s
        else:
            out[max_len - n :, i] = s
    return out.transpose(0, 1) if batch_first else out


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, : int(n)] for i, n in enumerate(_lengths(lengths))]


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
