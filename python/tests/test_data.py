"""ember.utils.data: datasets, samplers, collation, DataLoader in the main process and with workers (same batches),
worker seeding, IterableDataset sharding, get_worker_info, and PyTorch's argument checks."""

import collections
import math
import random
import warnings

import numpy as np
import pytest

import ember
from ember.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    get_worker_info,
    random_split,
)


def gen(seed):
    g = ember.Generator()
    g.manual_seed(seed)
    return g


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return ember.tensor([float(i), float(i * i)]), i

    def __len__(self):
        return self.n


class Stream(IterableDataset):
    """0 .. n-1, split between workers by get_worker_info (PyTorch's documented pattern)."""

    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        per = int(math.ceil(self.n / info.num_workers))
        return iter(range(info.id * per, min(self.n, (info.id + 1) * per)))

    def __len__(self):
        return self.n


# ---- datasets


def test_tensor_dataset():
    x = ember.arange(12.0).view(6, 2)
    y = ember.arange(6)
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert a.tolist() == [8.0, 9.0] and b.item() == 4
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, ember.arange(5))


def test_stack_dataset_tuple_and_dict():
    a, b = Squares(4), list("wxyz")
    s = StackDataset(a, b)
    assert len(s) == 4 and s[2][1] == "y" and s[2][0][1] == 2
    d = StackDataset(num=a, letter=b)
    assert d[3]["letter"] == "z" and d[3]["num"][1] == 3
    assert [x[1] for x in s.__getitems__([0, 3])] == ["w", "z"]
    assert d.__getitems__([1])[0]["letter"] == "x"
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a, list("ab"))
    with pytest.raises(ValueError, match="both types are given"):
        StackDataset(a, x=b)
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()


def test_concat_dataset_indexing():
    c = ConcatDataset([list(range(3)), list(range(10, 15)), [], list(range(20, 22))])
    assert len(c) == 10 and c.cumulative_sizes == [3, 8, 8, 10]
    assert [c[i] for i in range(10)] == [0, 1, 2, 10, 11, 12, 13, 14, 20, 21]
    assert c[-1] == 21 and c[-10] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        c[-11]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Stream(3)])
    both = Squares(2) + Squares(3)
    assert isinstance(both, ConcatDataset) and len(both) == 5 and both[4][1] == 2


def test_chain_dataset():
    ch = ChainDataset([Stream(3), Stream(2)])
    assert list(ch) == [0, 1, 2, 0, 1] and len(ch) == 5
    assert list(Stream(2) + Stream(1)) == [0, 1, 0]
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([[1, 2]]))


def test_subset():
    s = Subset(list(range(100, 110)), [9, 0, 4])
    assert len(s) == 3 and [s[i] for i in range(3)] == [109, 100, 104]
    assert s.__getitems__([2, 0]) == [104, 109]


def test_base_dataset_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="should implement __getitem__"):
        Dataset()[0]


def test_random_split_lengths_and_determinism():
    data = list(range(10))
    a, b = random_split(data, [3, 7], generator=gen(1))
    assert len(a) == 3 and len(b) == 7
    assert sorted([a[i] for i in range(3)] + [b[i] for i in range(7)]) == data  # a partition
    a2, b2 = random_split(data, [3, 7], generator=gen(1))
    assert list(a2.indices) == list(a.indices) and list(b2.indices) == list(b.indices)
    assert list(a.indices) + list(b.indices) == ember.randperm(10, generator=gen(1)).tolist()
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(data, [3, 3])


def test_random_split_fractions():
    parts = random_split(list(range(11)), [0.5, 0.3, 0.2], generator=gen(0))
    # floor(5.5)=5, floor(3.3)=3, floor(2.2)=2, remainder 1 goes to the first split (round robin)
    assert [len(p) for p in parts] == [6, 3, 2]
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(list(range(4)), [0.5, 1.5, -1.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        parts = random_split(list(range(2)), [0.9, 0.1], generator=gen(0))
    assert [len(p) for p in parts] == [2, 0]
    assert any("Length of split at index 1 is 0" in str(x.message) for x in w)


# ---- samplers


def test_sequential_sampler():
    assert list(SequentialSampler(range(5))) == [0, 1, 2, 3, 4] and len(SequentialSampler(range(5))) == 5


def test_random_sampler_is_a_permutation_and_reproducible():
    s = RandomSampler(range(50), generator=gen(3))
    order = list(s)
    assert sorted(order) == list(range(50)) and order != list(range(50))
    assert list(RandomSampler(range(50), generator=gen(3))) == order
    assert list(s) != order  # the generator moved on: the next epoch differs
    ember.manual_seed(5)
    o1 = list(RandomSampler(range(20)))
    ember.manual_seed(5)
    assert list(RandomSampler(range(20))) == o1  # without a generator: follows the default one


def test_random_sampler_num_samples_without_replacement_repeats_permutations():
    order = list(RandomSampler(range(4), num_samples=10, generator=gen(0)))
    assert len(order) == 10
    assert sorted(order[:4]) == [0, 1, 2, 3] and sorted(order[4:8]) == [0, 1, 2, 3]
    assert len(set(order[8:])) == 2


def test_random_sampler_with_replacement_is_uniform():
    n, draws = 10, 20000
    order = list(RandomSampler(range(n), replacement=True, num_samples=draws, generator=gen(0)))
    assert len(order) == draws and min(order) >= 0 and max(order) < n
    counts = np.bincount(order, minlength=n)
    chi2 = float(((counts - draws / n) ** 2 / (draws / n)).sum())
    assert chi2 < 30  # 9 degrees of freedom: p < 0.001 at 27.9


def test_random_sampler_argument_checks():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=0"):
        RandomSampler(range(3), replacement=0)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler([])


def test_subset_random_sampler():
    idx = [5, 17, 3, 99]
    out = list(SubsetRandomSampler(idx, generator=gen(0)))
    assert sorted(out) == sorted(idx)
    assert list(SubsetRandomSampler(idx, generator=gen(0))) == out


def test_weighted_random_sampler_distribution():
    weights = [0.1, 0.0, 0.6, 0.3]
    draws = 20000
    out = list(WeightedRandomSampler(weights, draws, generator=gen(1)))
    counts = np.bincount(out, minlength=4) / draws
    assert counts[1] == 0
    np.testing.assert_allclose(counts, weights, atol=0.015)
    no_repl = list(WeightedRandomSampler([1, 1, 1, 1, 1], 5, replacement=False, generator=gen(0)))
    assert sorted(no_repl) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="weights should be a 1d sequence but given weights have shape \\(2, 2\\)"):
        WeightedRandomSampler([[1, 2], [3, 4]], 3)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=-1"):
        WeightedRandomSampler([1, 2], -1)
    with pytest.raises(ValueError, match="replacement should be a boolean value"):
        WeightedRandomSampler([1, 2], 2, replacement="yes")


def test_batch_sampler():
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    assert len(BatchSampler(range(6), 3, False)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=True"):
        BatchSampler(range(3), True, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=1"):
        BatchSampler(range(3), 2, 1)


def test_distributed_sampler_padding_and_partition():
    n, reps = 10, 3
    parts = [list(DistributedSampler(range(n), num_replicas=reps, rank=r, shuffle=False)) for r in range(reps)]
    # ceil(10/3) = 4 each; total 12: indices padded with the first two (PyTorch's rule)
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert all(len(DistributedSampler(range(n), num_replicas=reps, rank=r)) == 4 for r in range(reps))
    dropped = [
        list(DistributedSampler(range(n), num_replicas=reps, rank=r, shuffle=False, drop_last=True))
        for r in range(reps)
    ]
    assert dropped == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    # more padding than data: the order repeats
    tiny = [list(DistributedSampler(range(2), num_replicas=5, rank=r, shuffle=False)) for r in range(5)]
    assert tiny == [[0], [1], [0], [1], [0]]


def test_distributed_sampler_shuffle_seed_and_epoch():
    def epoch_parts(epoch, seed=0):
        out = []
        for r in range(2):
            s = DistributedSampler(range(9), num_replicas=2, rank=r, shuffle=True, seed=seed)
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    e0 = epoch_parts(0)
    assert set(e0[0] + e0[1]) == set(range(9))
    assert len(e0[0]) == len(e0[1]) == 5
    assert epoch_parts(0) == e0  # every replica computes the same order
    assert epoch_parts(1) != e0
    assert epoch_parts(0, seed=7) != e0
    order = ember.randperm(9, generator=gen(0 + 1)).tolist()  # seed + epoch
    order += order[:1]
    assert epoch_parts(1)[0] == order[0::2] and epoch_parts(1)[1] == order[1::2]


def test_distributed_sampler_checks():
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(4), num_replicas=3, rank=3)
    with pytest.raises(ValueError, match=r"Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=3, rank=-1)


# ---- collation

Point = collections.namedtuple("Point", ["x", "y"])


def test_default_collate_tensors_numbers_strings():
    batch = [ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0])]
    out = default_collate(batch)
    assert out.tolist() == [[1.0, 2.0], [3.0, 4.0]] and out.dtype is ember.float32
    f = default_collate([1.5, 2.5])
    assert f.dtype is ember.float64 and f.tolist() == [1.5, 2.5]
    i = default_collate([1, 2, 3])
    assert i.dtype is ember.int64 and i.tolist() == [1, 2, 3]
    b = default_collate([True, False])
    assert b.dtype is ember.bool and b.tolist() == [True, False]
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_default_collate_numpy():
    arrs = [np.arange(6, dtype=np.float32).reshape(2, 3) + k for k in range(4)]
    out = default_collate(arrs)
    assert isinstance(out, ember.Tensor) and out.dtype is ember.float32 and tuple(out.shape) == (4, 2, 3)
    np.testing.assert_array_equal(np.array(out.tolist(), np.float32), np.stack(arrs))
    s = default_collate([np.float64(1.5), np.float64(2.0)])
    assert s.dtype is ember.float64 and s.tolist() == [1.5, 2.0]
    s32 = default_collate([np.int32(3), np.int32(4)])
    assert s32.dtype is ember.int32 and s32.tolist() == [3, 4]
    with pytest.raises(
        TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <U1"
    ):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_collate_nested_structures():
    batch = [
        {"img": ember.ones(2) * k, "label": k, "meta": Point(float(k), "p%d" % k), "pair": (k, [k, k + 1])}
        for k in range(3)
    ]
    out = default_collate(batch)
    assert set(out) == {"img", "label", "meta", "pair"}
    assert out["img"].tolist() == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    assert out["label"].tolist() == [0, 1, 2]
    assert isinstance(out["meta"], Point) and out["meta"].x.tolist() == [0.0, 1.0, 2.0]
    assert out["meta"].y == ("p0", "p1", "p2")  # zip gives tuples; strings are returned as they come
    pair = out["pair"]
    assert isinstance(pair, list)  # tuples become lists, as in PyTorch
    assert pair[0].tolist() == [0, 1, 2]
    assert [t.tolist() for t in pair[1]] == [[0, 1, 2], [1, 2, 3]]


def test_default_collate_ordered_dict_and_list_of_samples():
    out = default_collate([collections.OrderedDict(a=1, b=2.0), collections.OrderedDict(a=3, b=4.0)])
    assert isinstance(out, collections.OrderedDict) and list(out) == ["a", "b"]
    assert out["a"].tolist() == [1, 3] and out["b"].tolist() == [2.0, 4.0]
    lst = default_collate([[1, 2], [3, 4], [5, 6]])
    assert isinstance(lst, list) and [t.tolist() for t in lst] == [[1, 3, 5], [2, 4, 6]]


def test_default_collate_errors():
    with pytest.raises(
        RuntimeError,
        match="stack expects each tensor to be equal size, but got \\[2\\] at entry 0 and \\[3\\] at entry 1",
    ):
        default_collate([ember.zeros(2), ember.zeros(3)])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(
        TypeError,
        match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
        "or lists; found <class 'object'>",
    ):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 0, but got int"):
        default_collate([ember.zeros(2), 3])


def test_default_collate_of_views_and_zero_size_samples():
    base = ember.arange(24.0).view(2, 3, 4)
    samples = [base[0].t(), base[1].t()]  # non-contiguous views
    out = default_collate(samples)
    expect = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4).transpose(0, 2, 1)
    assert tuple(out.shape) == (2, 4, 3) and out.tolist() == expect.tolist() and out.is_contiguous()
    empty = default_collate([ember.zeros(0, 2), ember.zeros(0, 2)])
    assert tuple(empty.shape) == (2, 0, 2)
    scalars = default_collate([ember.tensor(1.5), ember.tensor(2.5)])
    assert tuple(scalars.shape) == (2,) and scalars.tolist() == [1.5, 2.5]


def test_default_collate_promotes_dtypes_like_stack():
    out = default_collate([ember.tensor([1], dtype=ember.int32), ember.tensor([2.5])])
    assert out.dtype is ember.float32 and out.tolist() == [[1.0], [2.5]]


def test_default_convert():
    assert isinstance(default_convert(np.arange(3)), ember.Tensor)
    a = np.arange(4, dtype=np.float32)
    t = default_convert(a)
    a[0] = 7.0  # a view of the array, as torch.as_tensor
    assert t.tolist() == [7.0, 1.0, 2.0, 3.0]
    out = default_convert({"a": np.zeros(2), "b": (np.ones(1), 3), "p": Point(np.int64(2), "s"), "s": "str"})
    assert isinstance(out["a"], ember.Tensor) and out["a"].dtype is ember.float64
    assert isinstance(out["b"], list) and out["b"][1] == 3
    assert isinstance(out["p"], Point) and out["p"].x.item() == 2 and out["p"].y == "s"
    assert out["s"] == "str"
    strs = np.array(["a", "b"])
    assert default_convert(strs) is strs
    assert default_convert(5) == 5


# ---- DataLoader


def _tolist(b):
    if isinstance(b, ember.Tensor):
        return (str(b.dtype), b.tolist())
    if isinstance(b, (list, tuple)):
        return [_tolist(x) for x in b]
    if isinstance(b, dict):
        return {k: _tolist(v) for k, v in b.items()}
    return b


def test_dataloader_batches_and_len():
    x = ember.arange(20.0).view(10, 2)
    y = ember.arange(10)
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    got = list(loader)
    assert len(loader) == 3 and len(got) == 3
    assert got[0][0].tolist() == x[:4].tolist() and got[2][1].tolist() == [8, 9]
    assert len(DataLoader(TensorDataset(x, y), batch_size=4, drop_last=True)) == 2
    assert len(list(DataLoader(TensorDataset(x, y), batch_size=4, drop_last=True))) == 2


def test_dataloader_without_batching_converts_samples():
    loader = DataLoader([np.arange(2), np.arange(2) + 5], batch_size=None)
    out = list(loader)
    assert len(loader) == 2 and [t.tolist() for t in out] == [[0, 1], [5, 6]]
    assert all(isinstance(t, ember.Tensor) for t in out)


def test_dataloader_shuffle_follows_the_generator():
    ds = list(range(30))
    a = [b.tolist() for b in DataLoader(ds, batch_size=5, shuffle=True, generator=gen(4))]
    b = [b.tolist() for b in DataLoader(ds, batch_size=5, shuffle=True, generator=gen(4))]
    assert a == b and sorted(sum(a, [])) == ds and sum(a, []) != ds


def test_dataloader_custom_samplers_and_collate():
    loader = DataLoader(list(range(10)), batch_sampler=[[9, 1], [4]], collate_fn=lambda b: sum(b))
    assert list(loader) == [10, 4] and len(loader) == 2
    loader = DataLoader(list(range(5)), sampler=[4, 3], batch_size=1)
    assert [b.tolist() for b in loader] == [[4], [3]]


def test_dataloader_uses_getitems_when_defined():
    class Batched(Dataset):
        calls = []

        def __getitems__(self, idx):
            self.calls.append(list(idx))
            return [i * 10 for i in idx]

        def __len__(self):
            return 5

    ds = Batched()
    assert [b.tolist() for b in DataLoader(ds, batch_size=2)] == [[0, 10], [20, 30], [40]]
    assert ds.calls == [[0, 1], [2, 3], [4]]


@pytest.mark.parametrize("shuffle", [False, True])
def test_zero_and_two_workers_give_identical_batches(shuffle):
    ds = Squares(37)
    kw = dict(batch_size=5, shuffle=shuffle)
    zero = [_tolist(b) for b in DataLoader(ds, num_workers=0, generator=gen(11), **kw)]
    two = [_tolist(b) for b in DataLoader(ds, num_workers=2, generator=gen(11), **kw)]
    assert zero == two and len(zero) == 8
    flat = sorted(sum((b[1][1] for b in zero), []))
    assert flat == list(range(37))


def test_worker_batches_arrive_in_shared_memory():
    ds = TensorDataset(ember.arange(40.0).view(20, 2))
    for (b,) in DataLoader(ds, batch_size=4, num_workers=2):
        assert b.is_shared()


class Noisy(Dataset):
    """Random augmentation from all three generators a worker seeds."""

    def __getitem__(self, i):
        return ember.rand(1).item(), random.random(), float(np.random.rand())

    def __len__(self):
        return 8


def test_worker_seeding_is_per_worker_and_reproducible():
    def run(seed):
        loader = DataLoader(Noisy(), batch_size=2, num_workers=2, generator=gen(seed))
        return [[t.tolist() for t in b] for b in loader]

    a, b, c = run(1), run(1), run(2)
    assert a == b  # reproducible given the loader's generator
    assert a != c
    # batches 0 and 1 come from workers 0 and 1: their random streams differ
    assert a[0] != a[1]
    for src in range(3):
        firsts = [a[0][src][0], a[1][src][0]]
        assert firsts[0] != firsts[1]


def _info_sample(i):
    info = get_worker_info()
    return (info.id, info.num_workers, info.seed, type(info.dataset).__name__)


class InfoDataset(Dataset):
    def __getitem__(self, i):
        return _info_sample(i)

    def __len__(self):
        return 4


def test_get_worker_info():
    assert get_worker_info() is None
    g = gen(21)
    base_seed = ember.empty((), dtype=ember.int64).random_(generator=gen(21)).item()
    out = list(DataLoader(InfoDataset(), batch_size=None, num_workers=2, generator=g))
    assert [o[0] for o in out] == [0, 1, 0, 1]
    assert all(o[1] == 2 and o[3] == "InfoDataset" for o in out)
    assert [o[2] for o in out] == [base_seed, base_seed + 1, base_seed, base_seed + 1]


def _frozen_info(i):
    info = get_worker_info()
    try:
        info.id = 5
    except RuntimeError as e:
        return str(e)
    return "assigned"


class Frozen(Dataset):
    def __getitem__(self, i):
        return _frozen_info(i)

    def __len__(self):
        return 1


def test_worker_info_is_read_only():
    assert list(DataLoader(Frozen(), batch_size=None, num_workers=1)) == [
        "Cannot assign attributes to WorkerInfo objects"
    ]


def test_worker_init_fn_runs_in_each_worker():
    class WhichInit(Dataset):
        def __getitem__(self, i):
            return get_worker_info().dataset.tag

        def __len__(self):
            return 4

    def init(worker_id):
        get_worker_info().dataset.tag = "init%d" % worker_id

    out = list(DataLoader(WhichInit(), batch_size=None, num_workers=2, worker_init_fn=init))
    assert out == ["init0", "init1", "init0", "init1"]


def test_iterable_dataset_sharded_through_worker_info():
    loader = DataLoader(Stream(10), batch_size=2, num_workers=2)
    got = sorted(sum((b.tolist() for b in loader), []))
    assert got == list(range(10))
    assert [b.tolist() for b in DataLoader(Stream(10), batch_size=2, num_workers=0)] == [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
        [8, 9],
    ]


def test_iterable_dataset_without_sharding_duplicates_per_worker():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch's behaviour: no warning unless len() was asked for
        got = sorted(sum((b.tolist() for b in DataLoader(Stream(5, shard=False), batch_size=2, num_workers=2)), []))
    assert got == sorted(list(range(5)) * 2)


def test_iterable_dataset_len_warning_after_len_was_called():
    loader = DataLoader(Stream(4, shard=False), batch_size=None, num_workers=2)
    assert len(loader) == 4
    with pytest.warns(UserWarning, match="Length of IterableDataset .* was reported to be 4"):
        got = list(loader)
    assert sorted(got) == [0, 0, 1, 1, 2, 2, 3, 3]  # batch_size=None: samples are not converted to tensors


def test_iterable_dataset_len_and_drop_last():
    assert len(DataLoader(Stream(10), batch_size=3)) == 4
    assert len(DataLoader(Stream(10), batch_size=3, drop_last=True)) == 3
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]


def test_pin_memory_without_cuda_warns_and_is_a_no_op():
    if ember.cuda.is_available():
        pytest.skip("a CUDA device is present: pin_memory is in effect there")
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        out = list(DataLoader(list(range(4)), batch_size=2, pin_memory=True))
    assert [b.tolist() for b in out] == [[0, 1], [2, 3]]


# ---- argument checks (PyTorch's types and messages)


@pytest.mark.parametrize(
    "kwargs, exc, msg",
    [
        (dict(num_workers=-1), ValueError, "num_workers option should be non-negative"),
        (dict(timeout=-1), ValueError, "timeout option should be non-negative"),
        (dict(prefetch_factor=2), ValueError, "prefetch_factor option could only be specified in multiprocessing"),
        (dict(persistent_workers=True), ValueError, "persistent_workers option needs num_workers > 0"),
        (dict(sampler=[0, 1], shuffle=True), ValueError, "sampler option is mutually exclusive with shuffle"),
        (
            dict(batch_sampler=[[0]], batch_size=2),
            ValueError,
            "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
        ),
        (dict(batch_sampler=[[0]], drop_last=True), ValueError, "batch_sampler option is mutually exclusive"),
        (
            dict(batch_size=None, drop_last=True),
            ValueError,
            "batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
        ),
        (
            dict(multiprocessing_context="fork"),
            ValueError,
            "multiprocessing_context can only be used with multi-process loading \\(num_workers > 0\\), but got "
            "num_workers=0",
        ),
        (
            dict(num_workers=1, multiprocessing_context="teleport"),
            ValueError,
            "multiprocessing_context option should specify a valid start method in",
        ),
        (
            dict(num_workers=1, multiprocessing_context=3),
            TypeError,
            "multiprocessing_context option should be a valid context object or a string",
        ),
        (dict(batch_size=0), ValueError, "batch_size should be a positive integer value, but got batch_size=0"),
    ],
)
def test_dataloader_argument_errors(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        DataLoader(list(range(4)), **kwargs)


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        (dict(shuffle=True), "expected unspecified shuffle option, but got shuffle=True"),
        (dict(sampler=[0]), "expected unspecified sampler option, but got sampler=\\[0\\]"),
        (dict(batch_sampler=[[0]]), "expected unspecified batch_sampler option"),
    ],
)
def test_dataloader_iterable_dataset_argument_errors(kwargs, msg):
    with pytest.raises(ValueError, match="DataLoader with IterableDataset: " + msg):
        DataLoader(Stream(3), **kwargs)


def test_dataloader_attributes_are_frozen():
    loader = DataLoader(list(range(4)), batch_size=2)
    for attr in ["batch_size", "sampler", "batch_sampler", "drop_last", "dataset", "persistent_workers"]:
        with pytest.raises(ValueError, match="%s attribute should not be set after DataLoader is initialized" % attr):
            setattr(loader, attr, None)
    loader.num_workers = 0  # other attributes may change


def test_len_of_iterable_dataset_without_len_raises_type_error():
    class NoLen(IterableDataset):
        def __iter__(self):
            return iter([1])

    with pytest.raises(TypeError):
        len(DataLoader(NoLen()))


def test_too_many_workers_warning():
    with pytest.warns(UserWarning, match="This DataLoader will create 1000 worker processes in total"):
        DataLoader(list(range(2)), num_workers=1000)


def test_dataloader_iterator_cannot_be_pickled():
    import pickle

    it = iter(DataLoader(list(range(3))))
    with pytest.raises(NotImplementedError, match="_SingleProcessDataLoaderIter cannot be pickled"):
        pickle.dumps(it)
