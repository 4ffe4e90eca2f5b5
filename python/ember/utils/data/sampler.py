"""Samplers: iterables of dataset indices (or of lists of indices, for BatchSampler)."""

from ... import _C

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]


class Sampler:
    """Base class: subclasses define __iter__ (indices) and, where known, __len__."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


def _fresh_generator():
    # A generator seeded from the default one, so that each epoch's order differs but follows manual_seed.
    g = _C.Generator()
    g.manual_seed(int(_C.empty((), dtype=_C.int64).random_().item()))
    return g


def _chunked(perm, chunk=2048):
    # The permutation becomes Python ints a chunk at a time: the first batch does not wait for all of them.
    for start in range(0, perm.numel(), chunk):
        yield from perm[start : start + chunk].tolist()


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (repeated when num_samples exceeds the length), or num_samples indices
    drawn with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement={}".format(self.replacement))
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got num_samples={}".format(self.num_samples)
            )

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            # Drawn in blocks, so that a partly consumed epoch costs only what it used.
            for _ in range(self.num_samples // 32):
                yield from _C.randint(0, n, (32,), dtype=_C.int64, generator=g).tolist()
            yield from _C.randint(0, n, (self.num_samples % 32,), dtype=_C.int64, generator=g).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _chunked(_C.randperm(n, generator=g))
            yield from _chunked(_C.randperm(n, generator=g)[: self.num_samples % n])

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _C.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to `weights` (multinomial)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got num_samples={}".format(num_samples)
            )
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement={}".format(replacement))
        weights_tensor = _C.as_tensor(weights, dtype=_C.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape {}".format(tuple(weights_tensor.shape))
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        rand = _C.multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from iter(rand.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got batch_size={}".format(batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        bs = self.batch_size
        if self.drop_last:
            while True:
                batch = [idx for _, idx in zip(range(bs), it)]
                if len(batch) < bs:
                    return
                yield batch
        else:
            while True:
                batch = [idx for _, idx in zip(range(bs), it)]
                if not batch:
                    return
                yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
