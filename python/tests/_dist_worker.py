"""The per-rank half of test_distributed.py: started by ember.distributed.run, it runs every check against NumPy
on the ranks' known inputs and writes {check: "ok" | traceback} to OUT/rank<R>.json. Each check must be entered by
every rank (they are collectives); a failing check records its traceback and the rest go on.
Usage: _dist_worker.py OUTDIR [init_method]"""

import json
import os
import sys
import time
import traceback
from datetime import timedelta

import numpy as np

import ember
import ember.distributed as dist
from ember import nn

OUT = sys.argv[1]
INIT = sys.argv[2] if len(sys.argv) > 2 else "env://"
RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def base(r, n=6, dtype=np.float64):
    """Rank r's input: distinct per rank and element, exact in every dtype used."""
    return (np.arange(n) % 5 + 1 + r).astype(dtype)


def t(a, dtype=None):
    """A tensor of a's values: float32 for floating input unless dtype says otherwise (as ember.tensor of a list)."""
    if dtype is None and np.asarray(a).dtype.kind == "f":
        dtype = ember.float32
    return ember.tensor(a, dtype=dtype)


def eq(got, want, tol=0.0):
    got = got.float().numpy() if got.dtype in (ember.float16, ember.bfloat16) else got.numpy()
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if tol:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype))


def raises(exc, words, fn):
    try:
        fn()
    except exc as e:
        for w in words:
            assert w in str(e), "{!r} not in {!r}".format(w, str(e))
        return str(e)
    raise AssertionError("no {} raised".format(exc.__name__))


ALL = [base(r) for r in range(WORLD)]


@check
def env_and_sizes():
    assert dist.is_initialized() and dist.is_available()
    assert dist.get_rank() == RANK and dist.get_world_size() == WORLD
    assert dist.get_backend() == "gloo"
    assert int(os.environ["LOCAL_RANK"]) == RANK and int(os.environ["LOCAL_WORLD_SIZE"]) == WORLD
    assert dist.group.WORLD is dist.GroupMember.WORLD and dist.group.WORLD is not None
    # DistributedSampler takes its replicas and rank from the default group
    from ember.utils.data import DistributedSampler

    s = DistributedSampler(range(10), shuffle=False)
    assert s.num_replicas == WORLD and s.rank == RANK and list(s)[0] == RANK


@check
def all_reduce_float_ops():
    stack = np.stack(ALL)
    for op, ref in [
        (dist.ReduceOp.SUM, stack.sum(0)),
        (dist.ReduceOp.PRODUCT, stack.prod(0)),
        (dist.ReduceOp.MIN, stack.min(0)),
        (dist.ReduceOp.MAX, stack.max(0)),
        (dist.ReduceOp.AVG, stack.mean(0)),
    ]:
        x = t(ALL[RANK], ember.float64)
        assert dist.all_reduce(x, op=op) is None
        eq(x, ref, 1e-12)


@check
def all_reduce_bitwise_ops():
    stack = np.stack([a.astype(np.int64) * 7 for a in ALL])
    for op, ref in [
        (dist.ReduceOp.BAND, np.bitwise_and.reduce(stack, 0)),
        (dist.ReduceOp.BOR, np.bitwise_or.reduce(stack, 0)),
        (dist.ReduceOp.BXOR, np.bitwise_xor.reduce(stack, 0)),
    ]:
        x = t(stack[RANK], ember.int64)
        dist.all_reduce(x, op=op)
        eq(x, ref)
    x = t(ALL[RANK], ember.float32)
    raises(TypeError, ["all_reduce", "BAND", "float32"], lambda: dist.all_reduce(x, op=dist.ReduceOp.BAND))
    raises(TypeError, ["all_reduce", "AVG", "int64"], lambda: dist.all_reduce(t([1]), op=dist.ReduceOp.AVG))


@check
def all_reduce_every_dtype():
    for dt, npdt in [
        (ember.uint8, np.uint8),
        (ember.int8, np.int8),
        (ember.int16, np.int16),
        (ember.int32, np.int32),
        (ember.int64, np.int64),
        (ember.float16, np.float32),
        (ember.bfloat16, np.float32),
        (ember.float32, np.float32),
        (ember.float64, np.float64),
    ]:
        x = t(ALL[RANK].astype(npdt), dt)
        dist.all_reduce(x)
        eq(x, np.stack(ALL).sum(0).astype(npdt))
        y = t(ALL[RANK].astype(npdt), dt)
        dist.all_reduce(y, op=dist.ReduceOp.MAX)
        eq(y, np.stack(ALL).max(0).astype(npdt))
    b = t([RANK == 0, False, True])
    dist.all_reduce(b)  # SUM of bools is a logical or
    eq(b, np.array([True, False, True]))
    b = t([RANK == 0, True, True])
    dist.all_reduce(b, op=dist.ReduceOp.PRODUCT)
    eq(b, np.array([WORLD == 1, True, True]))


@check
def all_reduce_shapes():
    # non-contiguous (a transposed view), 0-d, zero-size
    full = np.stack([np.arange(12.0).reshape(3, 4) + r for r in range(WORLD)])
    m = t(full[RANK]).t()
    assert not m.is_contiguous()
    dist.all_reduce(m)
    eq(m, full.sum(0).T)
    s = t(float(RANK + 1))
    dist.all_reduce(s)
    eq(s, np.array(WORLD * (WORLD + 1) / 2))
    z = ember.zeros(0, 3)
    dist.all_reduce(z)
    assert z.shape == (0, 3)
    # a slice of a bigger tensor: only that slice changes
    big = t(np.arange(10.0))
    dist.all_reduce(big[2:5])
    eq(big, np.concatenate([np.arange(2.0), np.arange(2.0, 5.0) * WORLD, np.arange(5.0, 10.0)]))


@check
def broadcast_():
    src = WORLD - 1
    x = t(ALL[RANK]).view(2, 3).t()  # non-contiguous
    dist.broadcast(x, src=src)
    eq(x, ALL[src].reshape(2, 3).T)
    y = t(ALL[RANK], ember.int32)
    dist.broadcast(y, 0)
    eq(y, ALL[0].astype(np.int32))


@check
def reduce_():
    dst = 1 % WORLD
    x = t(ALL[RANK])
    dist.reduce(x, dst=dst)
    eq(x, np.stack(ALL).sum(0) if RANK == dst else ALL[RANK])  # the other ranks keep their input
    y = t(ALL[RANK], ember.float32)
    dist.reduce(y, 0, op=dist.ReduceOp.MAX)
    if RANK == 0:
        eq(y, np.stack(ALL).max(0).astype(np.float32))
    z = t(ALL[RANK])
    dist.reduce(z, 0, op=dist.ReduceOp.AVG)
    if RANK == 0:
        eq(z, np.stack(ALL).mean(0), 1e-6)


@check
def all_gather_():
    outs = [ember.zeros(2, 3) for _ in range(WORLD)]
    dist.all_gather(outs, t(ALL[RANK]).view(2, 3))
    for r in range(WORLD):
        eq(outs[r], ALL[r].reshape(2, 3))
    # non-contiguous outputs and input
    outs = [ember.zeros(3, 2).t() for _ in range(WORLD)]
    dist.all_gather(outs, t(ALL[RANK]).view(3, 2).t())
    for r in range(WORLD):
        eq(outs[r], ALL[r].reshape(3, 2).T)
    raises(
        ValueError,
        ["all_gather", "list of {} tensors".format(WORLD)],
        lambda: dist.all_gather([ember.zeros(6)] * (WORLD + 1), t(ALL[RANK])),
    )


@check
def all_gather_into_tensor_():
    out = ember.zeros(WORLD * 6)
    dist.all_gather_into_tensor(out, t(ALL[RANK]))
    eq(out, np.concatenate(ALL))
    out2 = ember.zeros(WORLD, 6, dtype=ember.float16)
    dist.all_gather_into_tensor(out2, t(ALL[RANK], ember.float16))
    eq(out2, np.stack(ALL).astype(np.float32))
    raises(
        ValueError,
        ["all_gather_into_tensor", "world_size"],
        lambda: dist.all_gather_into_tensor(ember.zeros(5), t(ALL[RANK])),
    )


@check
def reduce_scatter_():
    ins = [t(ALL[RANK] * (j + 1)) for j in range(WORLD)]
    out = ember.zeros(6)
    dist.reduce_scatter(out, ins)
    eq(out, np.stack(ALL).sum(0) * (RANK + 1))
    big = t(np.concatenate([ALL[RANK] * (j + 1) for j in range(WORLD)]))
    out = ember.zeros(2, 3)
    dist.reduce_scatter_tensor(out, big, op=dist.ReduceOp.MAX)
    eq(out, (np.stack(ALL).max(0) * (RANK + 1)).reshape(2, 3))


@check
def gather_scatter():
    dst = WORLD - 1
    outs = [ember.zeros(6) for _ in range(WORLD)] if RANK == dst else None
    dist.gather(t(ALL[RANK]), outs, dst=dst)
    if RANK == dst:
        for r in range(WORLD):
            eq(outs[r], ALL[r])
    src = 0
    ins = [t(ALL[r] * 10) for r in range(WORLD)] if RANK == src else None
    out = ember.zeros(6)
    dist.scatter(out, ins, src=src)
    eq(out, ALL[RANK] * 10)
    if RANK != 0:
        raises(ValueError, ["scatter_list", "non-source"], lambda: dist.scatter(out, [out] * WORLD, src=0))
    else:
        raises(ValueError, ["gather_list", "must be specified"], lambda: dist.gather(out, None, dst=0))


@check
def all_to_all_():
    # rank r sends (j + 1) elements of value 100r + j to rank j
    ins = [t(np.full(j + 1, 100.0 * RANK + j)) for j in range(WORLD)]
    outs = [ember.zeros(RANK + 1) for _ in range(WORLD)]
    dist.all_to_all(outs, ins)
    for r in range(WORLD):
        eq(outs[r], np.full(RANK + 1, 100.0 * r + RANK))
    # single tensor, equal splits along dim 0 (rows of 2)
    inp = t(np.arange(WORLD * 2 * 2, dtype=np.float64).reshape(WORLD * 2, 2) + 1000 * RANK)
    out = ember.zeros(WORLD * 2, 2)
    dist.all_to_all_single(out, inp)
    want = np.concatenate(
        [(np.arange(WORLD * 4.0).reshape(WORLD * 2, 2) + 1000 * r)[2 * RANK : 2 * RANK + 2] for r in range(WORLD)]
    )
    eq(out, want)
    # uneven splits: rank r sends j + 1 rows to rank j
    in_splits = [j + 1 for j in range(WORLD)]
    out_splits = [RANK + 1] * WORLD
    inp = t(np.repeat(np.arange(WORLD, dtype=np.float64), in_splits) + 10 * RANK)
    out = ember.zeros(sum(out_splits))
    dist.all_to_all_single(out, inp, out_splits, in_splits)
    eq(out, np.concatenate([np.full(RANK + 1, RANK + 10.0 * r) for r in range(WORLD)]))
    raises(
        ValueError, ["all_to_all_single", "sum to"], lambda: dist.all_to_all_single(out, inp, out_splits, [1] * WORLD)
    )


@check
def barrier_():
    assert dist.barrier() is None
    w = dist.barrier(async_op=True)
    assert w.wait() is True and w.is_completed() and w.is_success()


@check
def send_recv():
    nxt, prv = (RANK + 1) % WORLD, (RANK - 1) % WORLD
    x = ember.zeros(2, 3)
    if RANK % 2 == 0:
        dist.send(t(ALL[RANK]).view(2, 3), nxt)
        dist.recv(x, prv)
    else:
        dist.recv(x, prv)
        dist.send(t(ALL[RANK]).view(2, 3), nxt)
    eq(x, ALL[prv].reshape(2, 3))
    # isend/irecv both ways, waited in either order; non-contiguous receive buffer
    y = ember.zeros(3, 2).t()
    ws = dist.isend(t(ALL[RANK] * 2).view(2, 3), nxt, tag=5)
    wr = dist.irecv(y, prv, tag=5)
    wr.wait()
    ws.wait()
    eq(y, ALL[prv].reshape(2, 3) * 2)
    # recv from any source names the sender
    if RANK == 1:
        dist.send(t([7.0]), 0, tag=9)
    if RANK == 0:
        z = ember.zeros(1)
        assert dist.recv(z, tag=9) == 1
        eq(z, np.array([7.0]))
    ops = [dist.P2POp(dist.isend, t(ALL[RANK]), nxt), dist.P2POp(dist.irecv, x.view(-1), prv)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    eq(x.view(-1), ALL[prv])
    raises(ValueError, ["destination rank"], lambda: dist.send(x, RANK))


@check
def async_ops():
    xs = [t(ALL[RANK] * (i + 1)) for i in range(4)]
    works = [dist.all_reduce(x, async_op=True) for x in xs]
    for w in reversed(works):
        assert w.wait() is True
    assert all(w.is_completed() and w.is_success() and w.exception() is None for w in works)
    for i, x in enumerate(xs):
        eq(x, np.stack(ALL).sum(0) * (i + 1))
    y = t(ALL[RANK])
    fut = dist.all_reduce(y, async_op=True).get_future()
    doubled = fut.then(lambda f: f.value()[0] * 2)
    eq(doubled.wait(), np.stack(ALL).sum(0) * 2)
    assert fut.done() and isinstance(fut, ember.futures.Future) and isinstance(doubled, ember.futures.Future)
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()[0]))  # already done: runs at once
    assert len(seen) == 1 and seen[0] is y
    fut2 = dist.all_reduce(t(ALL[RANK]), async_op=True).get_future()
    summed = ember.futures.wait_all([fut2.then(lambda f: f.value()[0].sum())])[0]
    assert abs(summed.item() - np.stack(ALL).sum()) < 1e-9
    w = dist.broadcast(t(ALL[RANK]), 0, async_op=True)
    w.wait(timeout=timedelta(seconds=30))
    eq(w.result()[0], ALL[0])


@check
def groups():
    first_last = [0, WORLD - 1]
    g = dist.new_group(first_last)
    g2 = dist.new_group()  # everyone
    if RANK in first_last:
        assert dist.get_rank(g) == first_last.index(RANK) and dist.get_world_size(g) == 2
        assert dist.get_process_group_ranks(g) == first_last
        x = t(ALL[RANK])
        dist.all_reduce(x, group=g)
        eq(x, ALL[0] + ALL[WORLD - 1])
        y = t(ALL[RANK])
        dist.broadcast(y, src=WORLD - 1, group=g)  # src is a global rank
        eq(y, ALL[WORLD - 1])
        assert dist.get_global_rank(g, 1) == WORLD - 1 and dist.get_group_rank(g, WORLD - 1) == 1
        if WORLD > 2:
            raises(ValueError, ["not part of group"], lambda: dist.broadcast(y, src=1, group=g))
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
        assert dist.all_reduce(t(ALL[RANK]), group=g) is None
    z = t(ALL[RANK])
    dist.all_reduce(z, group=g2)
    eq(z, np.stack(ALL).sum(0))
    dist.destroy_process_group(g2)


@check
def object_collectives():
    objs = [None] * WORLD
    dist.all_gather_object(objs, {"rank": RANK, "data": list(range(RANK + 1))})
    assert objs == [{"rank": r, "data": list(range(r + 1))} for r in range(WORLD)]
    lst = ["hello", {"a": (1, 2)}, 3.5] if RANK == 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=1)
    assert lst == ["hello", {"a": (1, 2)}, 3.5]
    gathered = [None] * WORLD if RANK == 0 else None
    dist.gather_object("r{}".format(RANK) * (RANK + 1), gathered, dst=0)
    if RANK == 0:
        assert gathered == ["r{}".format(r) * (r + 1) for r in range(WORLD)]
    out = [None]
    dist.scatter_object_list(out, [{"for": r} for r in range(WORLD)] if RANK == 0 else None, src=0)
    assert out == [{"for": RANK}]


@check
def sync_batch_norm():
    # Every rank knows the full batch; each normalizes its share (uneven: rank r takes r + 1 samples), and the
    # result must be BatchNorm's over the full batch, forward, input gradient and running statistics.
    D = ember.float64
    rng = np.random.default_rng(0)
    sizes = [r + 1 for r in range(WORLD)]
    full = rng.standard_normal((sum(sizes), 3, 4)) * 2 + 1
    gout = rng.standard_normal(full.shape)
    lo = sum(sizes[:RANK])
    sl = slice(lo, lo + sizes[RANK])
    ref = nn.BatchNorm1d(3).double()
    ref.weight.data.copy_(t([1.5, -0.5, 2.0], D))
    ref.bias.data.copy_(t([0.1, 0.2, -0.3], D))
    sbn = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm1d(3).double()))[0]
    sbn.weight.data.copy_(ref.weight.data)
    sbn.bias.data.copy_(ref.bias.data)
    assert isinstance(sbn, nn.SyncBatchNorm)
    xf = t(full, D).requires_grad_()
    yf = ref(xf)
    yf.backward(t(gout, D))
    xl = t(full[sl], D).requires_grad_()
    yl = sbn(xl)
    yl.backward(t(gout[sl], D))
    eq(yl.detach(), yf.detach().numpy()[sl], 1e-10)
    eq(xl.grad, xf.grad.numpy()[sl], 1e-10)
    eq(sbn.running_mean, ref.running_mean.numpy(), 1e-12)
    eq(sbn.running_var, ref.running_var.numpy(), 1e-12)
    gw = sbn.weight.grad.clone()
    dist.all_reduce(gw)  # the ranks' shares add up to the full batch's
    eq(gw, ref.weight.grad.numpy(), 1e-10)
    sbn.eval()
    eq(sbn(t(full[sl], D)).detach(), ref.eval()(t(full[sl], D)).detach().numpy(), 1e-12)


@check
def forked_child_leaves_groups_alone():
    # A forked child (a DataLoader worker) that tears the groups down, or just exits, must not stop the parent's
    # threads, its store server or its connections.
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            dist.destroy_process_group()
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    x = t(ALL[RANK])
    dist.all_reduce(x)
    eq(x, np.stack(ALL).sum(0))
    dist.get_rank()
    dist.barrier()


@check
def mismatch_errors():
    # dtype and size mismatches across ranks raise on every rank instead of hanging
    x = t(ALL[RANK], ember.float32 if RANK == 0 else ember.float64)
    raises(RuntimeError, ["all_reduce", "do not match", "float32", "float64"], lambda: dist.all_reduce(x))
    y = ember.zeros(3 + RANK)
    raises(RuntimeError, ["broadcast", "do not match", "elements"], lambda: dist.broadcast(y, 0))
    if RANK == 0:
        raises(RuntimeError, ["do not match"], lambda: dist.all_reduce(ember.zeros(2)))
    else:
        raises(RuntimeError, ["do not match"], lambda: dist.broadcast(ember.zeros(2), 0))
    raises(ValueError, ["invalid root"], lambda: dist.broadcast(ember.zeros(2), WORLD + 3))
    dist.barrier()  # the group still works


@check
def timeouts():
    # A timed-out Gloo op closes its group's connections (as in PyTorch), so each case gets its own group.
    g = dist.new_group(timeout=timedelta(milliseconds=1500))
    g3 = dist.new_group()
    if RANK == 0:
        x = ember.zeros(4)
        w = dist.all_reduce(x, group=g, async_op=True)  # nobody else joins
        raises(RuntimeError, ["all_reduce", "Work.wait timed out"], lambda: w.wait(timedelta(milliseconds=100)))
        raises(RuntimeError, ["all_reduce", "timed out after 1500 ms"], lambda: w.wait())
        assert w.is_completed() and not w.is_success()
        assert "timed out" in str(w.exception())
        raises(RuntimeError, ["all_reduce", "closed after an earlier timeout"], lambda: dist.all_reduce(x, group=g))
        r = dist.irecv(ember.zeros(1), src=1, group=g3, tag=77)
        raises(RuntimeError, ["recv", "timed out"], lambda: r.wait(timedelta(milliseconds=100)))
    dist.barrier()


@check
def wait_is_interruptible():
    # A signal handler's exception (Ctrl-C's KeyboardInterrupt) gets out of a Work.wait() that has no timeout.
    import signal

    class Interrupted(Exception):
        pass

    g = dist.new_group(timeout=timedelta(milliseconds=2000))
    if RANK == 0:

        def handler(signum, frame):
            raise Interrupted()

        old = signal.signal(signal.SIGALRM, handler)
        try:
            w = dist.all_reduce(ember.zeros(1), group=g, async_op=True)  # nobody else joins
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            start = time.perf_counter()
            try:
                w.wait()
                raise AssertionError("wait returned")
            except Interrupted:
                assert time.perf_counter() - start < 1.8
        finally:
            signal.signal(signal.SIGALRM, old)
        raises(RuntimeError, ["timed out after 2000 ms"], lambda: w.wait())
    dist.barrier()


@check
def monitored_barrier_():
    dist.monitored_barrier(timeout=timedelta(seconds=20))
    g = dist.new_group()
    if RANK == 0:
        raises(
            RuntimeError,
            ["Rank 1 failed to pass monitoredBarrier"],
            lambda: dist.monitored_barrier(g, timeout=timedelta(milliseconds=300)),
        )
    dist.barrier()


def main():
    kwargs = {}
    if INIT != "env://":
        kwargs = dict(rank=RANK, world_size=WORLD)
    dist.init_process_group("gloo", init_method=INIT, timeout=timedelta(seconds=60), **kwargs)
    results = {}
    for fn in CHECKS:
        start = time.perf_counter()
        try:
            fn()
            results[fn.__name__] = "ok"
        except Exception:
            results[fn.__name__] = traceback.format_exc()
            print("rank {} check {} failed:\n{}".format(RANK, fn.__name__, results[fn.__name__]), file=sys.stderr)
        dist.barrier()
        if os.environ.get("EMBER_DIST_WORKER_TIMES"):
            print("rank {} {}: {:.2f} s".format(RANK, fn.__name__, time.perf_counter() - start), file=sys.stderr)
    with open(os.path.join(OUT, "rank{}.json".format(RANK)), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
