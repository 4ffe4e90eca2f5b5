"""Transposing copies (Note [Transposing copies] in ember/backend/cpu/copy.cpp): a copy whose source is contiguous
along other dims than its destination runs as tiled 2-D transposes, through 8 x 8 register transposes for 4-byte
elements and element by element for the rest and at the tiles' edges. Each case is checked against NumPy: square
and ragged 2-D transposes (sizes around the 8-lane blocks and the 32-element tiles), permutations of 3 to 6 dims
whose contiguous runs span several dims (oneDNN's blocked weight layouts), casts, and several dtypes, at 1 and 2
threads."""

import numpy as np
import pytest

import ember

DTYPES = [np.float32, np.int32, np.float64, np.int8, np.int64]


@pytest.fixture(params=[1, 2], ids=["1T", "2T"])
def threads(request):
    old = ember.get_num_threads()
    ember.set_num_threads(request.param)
    yield request.param
    ember.set_num_threads(old)


def values(rng, shape, dtype):
    return (rng.standard_normal(shape) * 100).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols", [(4, 4), (8, 8), (9, 7), (16, 33), (31, 64), (100, 5), (257, 129)])
def test_transpose_2d(rng, threads, dtype, rows, cols):
    a = values(rng, (rows, cols), dtype)
    t = ember.tensor(a)
    np.testing.assert_array_equal(t.t().contiguous().numpy(), a.T)
    out = ember.empty(cols, rows, dtype=t.dtype)
    out.copy_(t.t())
    np.testing.assert_array_equal(out.numpy(), a.T)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape,perm",
    [
        ((3, 40, 24), (0, 2, 1)),
        ((5, 6, 7, 8), (3, 1, 0, 2)),
        ((2, 16, 9, 12), (0, 2, 3, 1)),  # NCHW -> NHWC
        ((2, 9, 12, 16), (0, 3, 1, 2)),  # NHWC -> NCHW
        ((4, 3, 5, 6, 7), (4, 2, 0, 3, 1)),
    ],
)
def test_permutations(rng, threads, dtype, shape, perm):
    a = values(rng, shape, dtype)
    np.testing.assert_array_equal(ember.tensor(a).permute(*perm).contiguous().numpy(), a.transpose(perm))


@pytest.mark.parametrize("inner", ["16i16o", "16o16i"])
@pytest.mark.parametrize("o,i,k", [(32, 32, 3), (16, 48, 1), (48, 16, 5), (64, 32, 2)])
def test_weight_into_a_blocked_layout(rng, threads, inner, o, i, k):
    # [O/16][I/16][k][k][16][16]: the destination's contiguous run spans two dims (the 16 x 16 block), the source's
    # the k x k taps and, for 16i16o, the 16 input channels
    w = values(rng, (o, i, k, k), np.float32)
    blocks = w.reshape(o // 16, 16, i // 16, 16, k, k)
    order = (0, 2, 4, 5, 3, 1) if inner == "16i16o" else (0, 2, 4, 5, 1, 3)
    expect = blocks.transpose(order)
    t = ember.tensor(w).view(o // 16, 16, i // 16, 16, k, k).permute(*order)
    np.testing.assert_array_equal(t.contiguous().numpy(), expect)
    # and back into the plain layout
    back = ember.empty(o // 16, 16, i // 16, 16, k, k)
    back.permute(*order).copy_(ember.tensor(np.ascontiguousarray(expect)))
    np.testing.assert_array_equal(back.numpy().reshape(o, i, k, k), w)


@pytest.mark.parametrize("src,dst", [(np.float32, np.float64), (np.int32, np.float32), (np.float64, np.int64)])
def test_casting_transpose(rng, threads, src, dst):
    a = values(rng, (37, 70), src)
    out = ember.empty(70, 37, dtype=ember.tensor(np.zeros(1, dst)).dtype)
    out.copy_(ember.tensor(a).t())
    np.testing.assert_array_equal(out.numpy(), a.T.astype(dst))


def test_bfloat16_transpose(rng, threads):
    a = values(rng, (33, 20), np.float32)
    t = ember.tensor(a).to(ember.bfloat16)
    expect = t.float().numpy().T
    np.testing.assert_array_equal(t.t().contiguous().float().numpy(), expect)


def test_transpose_of_a_strided_view(rng, threads):
    # neither side unit-stride in its other dims: a stepped, offset source
    a = values(rng, (50, 90), np.float32)
    v = ember.tensor(a)[3:47:2, 5:85]
    np.testing.assert_array_equal(v.t().contiguous().numpy(), a[3:47:2, 5:85].T)


@pytest.mark.parametrize("hw,channels", [(12544, 16), (113 * 113, 16), (3000, 8), (70000, 4)])
def test_one_long_run_splits_across_threads(rng, threads, hw, channels):
    # One block of channels (nChw16c with 16 channels, [H*W][16]) into plain [16][H*W] and back: the only outer index
    # is split into tiles down its rows, not left to one thread; ragged tiles at the end of the rows
    a = values(rng, (hw, channels), np.float32)
    np.testing.assert_array_equal(ember.tensor(a).t().contiguous().numpy(), a.T)
    out = ember.empty(hw, channels)
    out.t().copy_(ember.tensor(np.ascontiguousarray(a.T)))
    np.testing.assert_array_equal(out.numpy(), a)


@pytest.mark.parametrize("dtype", DTYPES + [np.complex64, np.bool_])
@pytest.mark.parametrize(
    "shape,perm",
    [
        ((8, 4, 4, 2, 16), (0, 3, 1, 2, 4)),  # NHWC into nChw16c: 64-byte runs
        ((2, 5, 7, 3), (0, 2, 1, 3)),  # runs of 3 elements
        ((3, 9, 33), (1, 0, 2)),  # runs of 33 (a word and a tail)
        ((2, 3, 4, 5, 6), (2, 0, 1, 3, 4)),  # runs that coalesce into 30, outer dims permuted
    ],
)
def test_short_runs(rng, threads, dtype, shape, perm):
    # the innermost dim contiguous on both sides, the next ones permuted: short runs two dims at a time (Note
    # [Copies of short runs])
    a = values(rng, shape, np.float32).astype(dtype)
    np.testing.assert_array_equal(ember.tensor(a).permute(*perm).contiguous().numpy(), a.transpose(perm))


def test_short_runs_of_a_narrowed_channels_last_tensor(rng, threads):
    a = values(rng, (4, 6, 6, 40), np.float32)  # NHWC memory, a piece of 24 channels
    out = ember.empty(4, 6, 6, 24)
    out.copy_(ember.tensor(a)[..., 8:32])
    np.testing.assert_array_equal(out.numpy(), a[..., 8:32])


@pytest.mark.parametrize("dtype", DTYPES + [np.float16, np.complex64, np.complex128, np.bool_])
@pytest.mark.parametrize("repeats", [1, 2, 3, 4, 5, 16, 17])
@pytest.mark.parametrize("source", ["contiguous", "transposed", "strided"])
def test_repeating_each_element(rng, threads, dtype, repeats, source):
    # the source's innermost stride is 0: each element written `repeats` times in a row (Note [Repeating each
    # element]); rows of 1031 elements split over the threads mid-row
    a = values(rng, (1031, 9), np.float32).astype(dtype)
    t = ember.tensor(a)
    if source == "transposed":
        a, t = a.T, t.t()
    elif source == "strided":
        a, t = a[::2, ::3], t[::2, ::3]
    want = np.repeat(a, repeats, axis=1)
    np.testing.assert_array_equal(t.repeat_interleave(repeats, 1).numpy(), want)
    np.testing.assert_array_equal(
        t.unsqueeze(-1).expand(*t.shape, repeats).contiguous().numpy(), want.reshape(*a.shape, repeats)
    )
    out = ember.zeros(*a.shape, repeats, dtype=t.dtype)
    out.copy_(t.unsqueeze(-1))
    np.testing.assert_array_equal(out.numpy(), want.reshape(*a.shape, repeats))


def test_repeating_each_element_into_a_strided_destination(rng):
    # a destination whose innermost stride is not 1 keeps the generic loop; its next dims may be anything
    a = values(rng, (6, 7), np.float32)
    out = ember.zeros(6, 7, 6)
    out[:, :, ::2].copy_(ember.tensor(a).unsqueeze(-1))
    want = np.zeros((6, 7, 6), np.float32)
    want[:, :, ::2] = a[:, :, None]
    np.testing.assert_array_equal(out.numpy(), want)
    out = ember.zeros(7, 6, 3).permute(1, 0, 2)  # rows of 3 repeats, 6 * 3 elements apart
    out.copy_(ember.tensor(a).unsqueeze(-1))
    np.testing.assert_array_equal(out.numpy(), np.repeat(a[:, :, None], 3, axis=2))


@pytest.mark.parametrize("dtype", DTYPES + [np.float16])
@pytest.mark.parametrize(
    "shape,perm",
    [
        ((2, 40), (1, 0)),  # interleave two rows
        ((40, 3), (1, 0)),  # deinterleave three columns
        ((4, 5, 17), (1, 2, 0)),
        ((3, 2, 2, 9, 11), (0, 3, 1, 4, 2)),  # pixel_shuffle by 2: [C, r, r, H, W] -> [C, H, r, W, r]
        ((3, 9, 4, 11, 4), (0, 2, 4, 1, 3)),  # pixel_unshuffle by 4
        ((6, 8, 2), (2, 0, 1)),  # a complex tensor's real and imaginary planes
    ],
)
def test_interleaving_copies(rng, threads, dtype, shape, perm):
    # Note [Interleaving copies]: one side's contiguous dim of 2 to 4 elements, unrolled along the other side's
    a = values(rng, shape, dtype)
    np.testing.assert_array_equal(ember.tensor(a).permute(*perm).contiguous().numpy(), a.transpose(perm))
    out = ember.empty(*a.transpose(perm).shape, dtype=ember.tensor(a).dtype).permute(*np.argsort(perm))
    out.copy_(ember.tensor(a))  # written through a permuted destination
    np.testing.assert_array_equal(out.permute(*perm).contiguous().numpy(), a.transpose(perm))
