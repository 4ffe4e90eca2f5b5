"""torch.distributed's API: the default group, new_group, the collectives, the object collectives.

Each group is a ProcessGroup here holding one C++ backend per device type ("cpu" -> Gloo, "cuda" -> NCCL); the
collectives pick the backend by the tensor's device and translate global ranks (src/dst arguments) to group ranks,
as PyTorch does. Synchronous calls wait on the C++ Work (with the GIL released); async_op=True returns it."""

import io
import os
import pickle
import warnings
from datetime import timedelta

from .. import _C
from .._C import _distributed as _d
from ..futures import Future
from .rendezvous import rendezvous

__all__ = [
    "Backend",
    "ReduceOp",
    "reduce_op",
    "GroupMember",
    "group",
    "ProcessGroup",
    "Work",
    "P2POp",
    "Store",
    "TCPStore",
    "FileStore",
    "PrefixStore",
    "HashStore",
    "default_pg_timeout",
    "init_process_group",
    "destroy_process_group",
    "is_initialized",
    "is_gloo_available",
    "is_nccl_available",
    "is_mpi_available",
    "is_ucc_available",
    "is_torchelastic_launched",
    "get_rank",
    "get_world_size",
    "get_backend",
    "new_group",
    "get_group_rank",
    "get_global_rank",
    "get_process_group_ranks",
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "scatter",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "monitored_barrier",
    "send",
    "recv",
    "isend",
    "irecv",
    "batch_isend_irecv",
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "scatter_object_list",
    "DistBackendError",
    "DistError",
    "DistStoreError",
]

Store = _d.Store
TCPStore = _d.TCPStore
FileStore = _d.FileStore
PrefixStore = _d.PrefixStore
HashStore = _d.HashStore

default_pg_timeout = timedelta(minutes=30)


class DistError(RuntimeError):
    pass


class DistBackendError(DistError):
    pass


class DistStoreError(DistError):
    pass


class ReduceOp:
    """torch.distributed.ReduceOp: ReduceOp.SUM ... are the C++ enum's values (ReduceOp.RedOpType)."""

    RedOpType = _d.RedOpType
    SUM = _d.RedOpType.SUM
    AVG = _d.RedOpType.AVG
    PRODUCT = _d.RedOpType.PRODUCT
    MIN = _d.RedOpType.MIN
    MAX = _d.RedOpType.MAX
    BAND = _d.RedOpType.BAND
    BOR = _d.RedOpType.BOR
    BXOR = _d.RedOpType.BXOR


class reduce_op:  # noqa: N801 (the deprecated lower-case alias)
    SUM = ReduceOp.SUM
    PRODUCT = ReduceOp.PRODUCT
    MIN = ReduceOp.MIN
    MAX = ReduceOp.MAX


class Backend(str):
    """A backend name: "gloo", "nccl", or a device map such as "cpu:gloo,cuda:nccl"."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"
    UCC = "ucc"
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL}
    backend_list = [UNDEFINED, GLOO, NCCL, MPI, UCC]

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError("Backend name must be a string, but got: {}".format(name))
        value = name.lower()
        if value not in cls.backend_list and ":" not in value:
            raise ValueError("Invalid backend: '{}'".format(name))
        return str.__new__(cls, value)


def _cuda():
    from .. import cuda

    return cuda


def _device_backends(backend):
    """{device type: backend name} for a backend string; None means gloo, plus nccl for CUDA where it can run."""
    if backend is None or backend == Backend.UNDEFINED:
        m = {"cpu": Backend.GLOO}
        if is_nccl_available() and _cuda().is_available():
            m["cuda"] = Backend.NCCL
        return m
    name = Backend(backend)
    if ":" in name:
        m = {}
        for part in name.split(","):
            dev, _, b = part.partition(":")
            dev, b = dev.strip(), b.strip()
            if dev not in ("cpu", "cuda") or b not in (Backend.GLOO, Backend.NCCL):
                raise ValueError(
                    "Invalid backend string {!r}: expected entries such as 'cpu:gloo' or 'cuda:nccl'".format(backend)
                )
            m[dev] = b
        return m
    if name == Backend.GLOO:
        return {"cpu": Backend.GLOO, "cuda": Backend.GLOO}
    if name == Backend.NCCL:
        return {"cuda": Backend.NCCL}
    raise RuntimeError("Distributed package doesn't have {} built in".format(name.upper()))


class Work:
    """The handle of an async collective (c10d's Work). wait() blocks until it is done (raising its error) and
    releases the GIL meanwhile; timeout (a timedelta) bounds the wait."""

    __slots__ = ("_work", "_group", "_result")

    def __init__(self, work, group, result=None):
        self._work = work
        self._group = group
        self._result = result

    def wait(self, timeout=None):
        return self._work.wait(timeout)

    def is_completed(self):
        return self._work.is_completed()

    def is_success(self):
        return self._work.is_success()

    def exception(self):
        return self._work.exception()

    def result(self):
        return list(self._work.result()) if self._result is None else self._result

    def source_rank(self):
        r = self._work._source_rank()
        return r if r < 0 or self._group is None else self._group._ranks[r]

    def synchronize(self):
        self.wait()

    def get_future(self):
        return _WorkFuture(self)

    def __repr__(self):
        return "<ember.distributed.Work {} completed={}>".format(self._work.op, self.is_completed())


class _WorkFuture(Future):
    """Work.get_future(): an ember.futures.Future completed with the op's output tensors when the Work is found
    finished (done()) or waited (wait()/value()), which then runs its callbacks (Note [Lazy futures])."""

    def __init__(self, work):
        super().__init__()
        self._work = work

    def _poll(self):
        if not self._completed and self._work.is_completed():
            self._drive()

    def _drive(self):
        with self._cond:
            if self._completed or getattr(self, "_driving", False):
                return
            self._driving = True
        try:
            self._work.wait()
            result = self._work.result()
        except Exception as e:  # noqa: BLE001  (the Work's error is the Future's)
            self.set_exception(e)
        else:
            self.set_result(result)


class ProcessGroup:
    """A group: its global ranks (in group-rank order), this process's group rank, and one C++ backend per device
    type."""

    def __init__(self, ranks, rank, backends, backend_name, store, timeout):
        self._ranks = list(ranks)
        self._rank = rank
        self._backends = backends  # device type -> C++ ProcessGroup
        self._backend_name = backend_name
        self._store = store
        self._timeout = timeout

    def rank(self):
        return self._rank

    def size(self):
        return len(self._ranks)

    def name(self):
        return self._backend_name

    def _backend(self, device_type, op):
        pg = self._backends.get(device_type)
        if pg is None:
            if len(self._backends) == 1:  # its own device check names the problem
                return next(iter(self._backends.values()))
            raise RuntimeError(
                "[{}] no backend of this group ({}) takes {} tensors".format(op, self._backend_name, device_type)
            )
        return pg

    def _for(self, tensor, op):
        if tensor is None:
            raise ValueError("[{}] expected a tensor, got None".format(op))
        if not isinstance(tensor, _C.Tensor):
            raise TypeError("[{}] expected a tensor, got {}".format(op, type(tensor).__name__))
        return self._backend(tensor.device.type, op)

    def _any(self):
        return self._backends.get("cpu") or next(iter(self._backends.values()))

    def __repr__(self):
        return "<ember.distributed.ProcessGroup {} rank {} of {}>".format(self._backend_name, self._rank, self.size())


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = object()


group = GroupMember  # torch.distributed.group.WORLD


class _World:
    default_pg = None
    default_store = None
    group_count = 0
    groups = []


_world = _World()

_UNINIT = "Default process group has not been initialized, please make sure to call init_process_group."


def _get_default_group():
    if _world.default_pg is None:
        raise RuntimeError(_UNINIT)
    return _world.default_pg


def _get_default_store():
    _get_default_group()
    return _world.default_store


def _group_or_default(group):
    if group is None or group is GroupMember.WORLD:
        return _get_default_group()
    _get_default_group()
    return group


def _not_in_group(group):
    return group is GroupMember.NON_GROUP_MEMBER


def is_initialized():
    return _world.default_pg is not None


def is_gloo_available():
    return True


def is_nccl_available():
    return _d._nccl_is_built()


def is_mpi_available():
    return False


def is_ucc_available():
    return False


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _gloo_address(store):
    """Where this process's Gloo listens: GLOO_SOCKET_IFNAME's interface, else the address that reaches the
    TCPStore's master (127.0.0.1 on one machine)."""
    iface = os.environ.get("GLOO_SOCKET_IFNAME", "")
    if iface:
        return "", iface.split(",")[0]
    while isinstance(store, PrefixStore):
        store = store.underlying_store
    if isinstance(store, TCPStore):
        return _d._local_address_for(store.host), ""
    return "127.0.0.1", ""


def _check_signatures():
    return os.environ.get("EMBER_DISTRIBUTED_CHECKS", "1") != "0"


def _make_group(ranks, rank, backend, store, timeout):
    if not isinstance(timeout, timedelta):
        raise TypeError("Expected timeout argument to be of type datetime.timedelta")
    devices = _device_backends(backend)
    hostname, iface = _gloo_address(store)
    made = {}
    backends = {}
    for dev, name in devices.items():
        if name not in made:
            sub = PrefixStore(name, store)
            if name == Backend.GLOO:
                made[name] = _d._new_gloo_group(sub, rank, len(ranks), timeout, hostname, iface, _check_signatures())
            else:
                made[name] = _d._new_nccl_group(sub, rank, len(ranks), timeout)
        backends[dev] = made[name]
    label = str(Backend(backend)) if backend is not None else "cpu:gloo,cuda:nccl" if "cuda" in devices else "gloo"
    return ProcessGroup(ranks, rank, backends, label, store, timeout)


def init_process_group(
    backend=None,
    init_method=None,
    timeout=default_pg_timeout,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
):
    """Joins the default group: rendezvous through init_method (env:// by default) or an existing store."""
    if _world.default_pg is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    if not isinstance(timeout, timedelta):
        raise TypeError("Expected timeout argument to be of type datetime.timedelta")
    if backend is not None:
        _device_backends(backend)  # a bad name raises before any rendezvous
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if store is not None:
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
    else:
        if init_method is None:
            init_method = "env://"
        store, rank, world_size = next(rendezvous(init_method, rank, world_size, timeout=timeout))
        store.set_timeout(timeout)
    pg = _make_group(range(world_size), rank, backend, PrefixStore("default_pg", store), timeout)
    _world.default_pg = pg
    _world.default_store = store
    _world.group_count = 0
    _world.groups = [pg]
    GroupMember.WORLD = pg


def destroy_process_group(group=None):
    """Tears down group (all groups, the default one included, when group is None or WORLD)."""
    if group is None or group is GroupMember.WORLD:
        _get_default_group()
        for g in _world.groups:
            g._backends.clear()
        _world.default_pg = None
        _world.default_store = None
        _world.groups = []
        _world.group_count = 0
        GroupMember.WORLD = None
        return
    if _not_in_group(group):
        return
    group._backends.clear()
    if group in _world.groups:
        _world.groups.remove(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False):
    """A group of the given global ranks; every process of the default group must call it, in the same order.
    Processes outside ranks get GroupMember.NON_GROUP_MEMBER."""
    default = _get_default_group()
    world = default.size()
    ranks = sorted(range(world) if ranks is None else ranks)
    for r in ranks:
        if not isinstance(r, int) or r < 0 or r >= world:
            raise ValueError("Invalid rank {} in new_group (world size {})".format(r, world))
    if len(set(ranks)) != len(ranks):
        raise ValueError("new_group: ranks must be distinct, got {}".format(ranks))
    _world.group_count += 1
    timeout = default._timeout if timeout is None else timeout
    backend = default._backend_name if backend is None else backend
    me = default._rank
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    store = PrefixStore("group{}".format(_world.group_count), _world.default_store)
    pg = _make_group(ranks, ranks.index(me), backend, store, timeout)
    _world.groups.append(pg)
    return pg


def get_rank(group=None):
    g = _group_or_default(group)
    return -1 if _not_in_group(g) else g._rank


def get_world_size(group=None):
    g = _group_or_default(group)
    if _not_in_group(g):
        return -1
    return g.size()


def get_backend(group=None):
    g = _group_or_default(group)
    if _not_in_group(g):
        raise RuntimeError("Invalid process group specified")
    return g._backend_name


def get_process_group_ranks(group):
    g = _group_or_default(group)
    return list(g._ranks)


def get_group_rank(group, global_rank):
    g = _group_or_default(group)
    if g is _world.default_pg:
        return global_rank
    try:
        return g._ranks.index(global_rank)
    except ValueError:
        raise ValueError("Global rank {} is not part of group {}".format(global_rank, g)) from None


def get_global_rank(group, group_rank):
    g = _group_or_default(group)
    if not 0 <= group_rank < g.size():
        raise ValueError("Group rank {} is not part of group {}".format(group_rank, g))
    return g._ranks[group_rank]


_get_global_rank = get_global_rank


def _warn_not_in_group(op):
    warnings.warn("Running {} on global rank {} which does not belong to the given group.".format(op, get_rank()))


def _finish(work, group, async_op, result=None):
    w = Work(work, group, result)
    if async_op:
        return w
    w.wait()
    return None


def _check_op(op):
    if not isinstance(op, _d.RedOpType):
        raise TypeError("Invalid ``op``: expected a ReduceOp, got {!r}".format(op))
    return op


# ---- collectives


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("all_reduce")
    return _finish(g._for(tensor, "all_reduce").allreduce(tensor, _check_op(op)), g, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("broadcast")
    return _finish(g._for(tensor, "broadcast").broadcast(tensor, get_group_rank(g, src)), g, async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("reduce")
    return _finish(g._for(tensor, "reduce").reduce(tensor, get_group_rank(g, dst), _check_op(op)), g, async_op)


def _tensor_list(lst, op, name):
    if not isinstance(lst, (list, tuple)) or not all(isinstance(t, _C.Tensor) for t in lst):
        raise TypeError("[{}] ``{}`` must be a list of tensors".format(op, name))
    return list(lst)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("all_gather")
    outs = _tensor_list(tensor_list, "all_gather", "tensor_list")
    return _finish(g._for(tensor, "all_gather").allgather(outs, tensor), g, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("all_gather_into_tensor")
    pg = g._for(input_tensor, "all_gather_into_tensor")
    return _finish(pg.allgather_into_tensor(output_tensor, input_tensor), g, async_op)


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("reduce_scatter")
    ins = _tensor_list(input_list, "reduce_scatter", "input_list")
    return _finish(g._for(output, "reduce_scatter").reduce_scatter(output, ins, _check_op(op)), g, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("reduce_scatter_tensor")
    pg = g._for(input, "reduce_scatter_tensor")
    return _finish(pg.reduce_scatter_tensor(output, input, _check_op(op)), g, async_op)


def _reduce_scatter_base(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    return reduce_scatter_tensor(output, input, op, group, async_op)


def _root_list(g, root, lst, op, name, where, non_where):
    """The tensor list that only the root passes (gather's outputs, scatter's inputs); [] elsewhere."""
    if g._rank == root:
        if not lst:
            raise ValueError("Argument ``{}`` must be specified on {} rank.".format(name, where))
        return _tensor_list(lst, op, name)
    if lst:
        raise ValueError("Argument ``{}`` must NOT be specified on {} ranks.".format(name, non_where))
    return []


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("gather")
    root = get_group_rank(g, dst)
    outs = _root_list(g, root, gather_list, "gather", "gather_list", "destination", "non-destination")
    return _finish(g._for(tensor, "gather").gather(outs, tensor, root), g, async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("scatter")
    root = get_group_rank(g, src)
    ins = _root_list(g, root, scatter_list, "scatter", "scatter_list", "source", "non-source")
    return _finish(g._for(tensor, "scatter").scatter(tensor, ins, root), g, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("all_to_all")
    outs = _tensor_list(output_tensor_list, "all_to_all", "output_tensor_list")
    ins = _tensor_list(input_tensor_list, "all_to_all", "input_tensor_list")
    if not ins:
        raise ValueError("[all_to_all] input_tensor_list is empty")
    return _finish(g._for(ins[0], "all_to_all").alltoall(outs, ins), g, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("all_to_all_single")
    out_splits = [] if output_split_sizes is None else [int(s) for s in output_split_sizes]
    in_splits = [] if input_split_sizes is None else [int(s) for s in input_split_sizes]
    pg = g._for(input, "all_to_all_single")
    return _finish(pg.alltoall_base(output, input, out_splits, in_splits), g, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("barrier")
    return _finish(g._any().barrier(), g, async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not reach it within timeout (Gloo only), as PyTorch's: every rank
    reports to rank 0, which answers them all once everyone has arrived."""
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("monitored_barrier")
    pg = g._backends.get("cpu")
    if pg is None or pg.name() != Backend.GLOO:
        raise RuntimeError("monitored_barrier is only implemented for GLOO backend.")
    timeout = g._timeout if timeout is None else timeout
    token = _C.zeros(1, dtype=_C.int32)
    tag = 0x4D42  # not used by user send/recv in practice ("MB")
    if g._rank != 0:
        pg.send(token, 0, tag).wait(timeout)
        pg.recv(token, 0, tag).wait(timeout)
        return
    failed = []
    for r in range(1, g.size()):
        try:
            pg.recv(_C.zeros(1, dtype=_C.int32), r, tag).wait(timeout)
        except RuntimeError:
            failed.append(g._ranks[r])
            if not wait_all_ranks:
                break
    if failed:
        if wait_all_ranks:
            raise RuntimeError(
                "Ranks {} failed to pass monitoredBarrier in {} ms".format(
                    ", ".join(map(str, failed)), int(timeout.total_seconds() * 1000)
                )
            )
        raise RuntimeError(
            "Rank {} failed to pass monitoredBarrier in {} ms".format(failed[0], int(timeout.total_seconds() * 1000))
        )
    for r in range(1, g.size()):
        pg.send(token, r, tag).wait(timeout)


# ---- point to point


def _p2p_group(group, op):
    g = _group_or_default(group)
    if _not_in_group(g):
        _warn_not_in_group(op)
        return None
    return g


def isend(tensor, dst, group=None, tag=0):
    g = _p2p_group(group, "isend")
    if g is None:
        return None
    return Work(g._for(tensor, "send").send(tensor, get_group_rank(g, dst), tag), g)


def irecv(tensor, src=None, group=None, tag=0):
    g = _p2p_group(group, "irecv")
    if g is None:
        return None
    peer = -1 if src is None else get_group_rank(g, src)
    return Work(g._for(tensor, "recv").recv(tensor, peer, tag), g)


def send(tensor, dst, group=None, tag=0):
    if get_rank() == dst:
        raise ValueError(
            "Invalid destination rank: destination rank should not be the same as the rank of the current process."
        )
    w = isend(tensor, dst, group, tag)
    if w is not None:
        w.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receives into tensor; returns the sender's rank (-1 outside the group)."""
    w = irecv(tensor, src, group, tag)
    if w is None:
        return -1
    w.wait()
    return w.source_rank() if src is None else src


class P2POp:
    """One isend or irecv for batch_isend_irecv."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv):
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


# ---- object collectives: pickled into uint8 tensors


def _object_to_tensor(obj, device="cpu"):
    f = io.BytesIO()
    pickle.Pickler(f).dump(obj)
    t = _C.frombuffer(bytearray(f.getbuffer()), dtype=_C.uint8)  # owns its copy of the bytes
    size = _C.tensor([t.numel()], dtype=_C.int64)
    if device != "cpu":
        t, size = t.to(device), size.to(device)
    return t, size


def _tensor_to_object(tensor, size):
    buf = tensor[:size].cpu().numpy().tobytes()
    return pickle.loads(buf)


def _object_device(g):
    if "cpu" in g._backends and g._backends["cpu"].name() == Backend.GLOO:
        return "cpu"
    return "cuda:{}".format(_cuda().current_device())


def _padded_object(obj, g, dev):
    """obj pickled into a uint8 tensor padded to the longest of the group's, and every rank's length."""
    t, size = _object_to_tensor(obj, dev)
    sizes = [_C.zeros(1, dtype=_C.int64, device=dev) for _ in range(g.size())]
    all_gather(sizes, size, group=g)
    sizes = [int(s.item()) for s in sizes]
    padded = _C.zeros(max(sizes), dtype=_C.uint8, device=dev)
    padded[: t.numel()] = t
    return padded, sizes


def all_gather_object(object_list, obj, group=None):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("all_gather_object")
    dev = _object_device(g)
    padded, sizes = _padded_object(obj, g, dev)
    n, longest = g.size(), padded.numel()
    outs = [_C.empty(longest, dtype=_C.uint8, device=dev) for _ in range(n)]
    all_gather(outs, padded, group=g)
    for i in range(n):
        object_list[i] = _tensor_to_object(outs[i], sizes[i])


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("gather_object")
    root = get_group_rank(g, dst)
    if g._rank == root and object_gather_list is None:
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")
    dev = _object_device(g)
    padded, sizes = _padded_object(obj, g, dev)
    n, longest = g.size(), padded.numel()
    outs = [_C.empty(longest, dtype=_C.uint8, device=dev) for _ in range(n)] if g._rank == root else None
    gather(padded, outs, dst=dst, group=g)
    if g._rank == root:
        for i in range(n):
            object_gather_list[i] = _tensor_to_object(outs[i], sizes[i])


def broadcast_object_list(object_list, src=0, group=None, device=None):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("broadcast_object_list")
    dev = str(device) if device is not None else _object_device(g)
    root = get_group_rank(g, src)
    if g._rank == root:
        parts = [_object_to_tensor(o, "cpu") for o in object_list]
        sizes = _C.cat([s for _, s in parts]).to(dev)
        data = (_C.cat([t for t, _ in parts]) if parts else _C.empty(0, dtype=_C.uint8)).to(dev)
    else:
        sizes = _C.empty(len(object_list), dtype=_C.int64, device=dev)
    broadcast(sizes, src=src, group=g)
    if g._rank != root:
        data = _C.empty(int(sizes.sum().item()), dtype=_C.uint8, device=dev)
    broadcast(data, src=src, group=g)
    if g._rank != root:
        off = 0
        for i, s in enumerate(sizes.tolist()):
            object_list[i] = _tensor_to_object(data[off : off + s], s)
            off += s


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    g = _group_or_default(group)
    if _not_in_group(g):
        return _warn_not_in_group("scatter_object_list")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = get_group_rank(g, src)
    objs = [None]
    if g._rank == root:
        objs = [list(scatter_object_input_list)]
    # One broadcast of the list, then each rank keeps its element: simple, and the lists are small.
    broadcast_object_list(objs, src=src, group=g)
    if not isinstance(objs[0], list) or len(objs[0]) != g.size():
        raise ValueError("scatter_object_input_list must have one object per rank of the group")
    scatter_object_output_list[0] = objs[0][g._rank]
