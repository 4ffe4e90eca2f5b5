"""DistributedDataParallel: one process per replica; gradients are averaged across the processes during backward.

How it works (Note [DDP buckets]): the parameters that require grad are grouped, in reverse registration order
(roughly the order backward produces their gradients), into buckets of one device and dtype of at most
bucket_cap_mb (the first one 1 MiB, so that communication starts early). Each parameter has a post-accumulate-grad
hook; when every parameter of a bucket has its gradient, and every earlier bucket has been launched (all ranks must
issue the collectives in the same order), the gradients are copied into the bucket's flat buffer, divided by the
world size, and all-reduced asynchronously (the collective runs on the process group's C++ worker
thread, or NCCL's stream, while backward goes on). A callback queued on the engine waits for every bucket at the
end of backward and writes the averages back into .grad (or, with gradient_as_bucket_view, makes .grad a view of
the bucket so that nothing is copied from the second iteration on). All the tensor work is ember ops (C++); this
file only orchestrates. With find_unused_parameters, forward walks the output's autograd graph to find parameters
that will get no gradient, marks them ready at once, and a per-parameter "used" mask is all-reduced with the
gradients so that a parameter no rank used keeps grad None, as in PyTorch.
"""

import contextlib

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.variable import Variable
from ..modules.module import Module
from .data_parallel import _to_device

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


def _dist():
    from ... import distributed as dist

    return dist


class _Bucket:
    __slots__ = ("params", "indices", "offsets", "buffer", "pending", "work", "used")

    def __init__(self, params, indices):
        self.params = params
        self.indices = indices  # positions in DistributedDataParallel._params
        self.offsets = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        p0 = params[0]
        self.buffer = _C.zeros([n], dtype=p0.dtype, device=p0.device)
        self.pending = len(params)
        self.work = None
        self.used = None

    def slot(self, i):
        p = self.params[i]
        return self.buffer[self.offsets[i] : self.offsets[i] + p.numel()].view(p.shape)


def _assign_buckets(params, cap_bytes, first_cap_bytes):
    """Reverse registration order, grouped by (device, dtype), each bucket at most `cap` bytes (one oversize
    parameter gets a bucket of its own)."""
    open_buckets, out = {}, []
    cap = first_cap_bytes
    for i in reversed(range(len(params))):
        p = params[i]
        key = (str(p.device), p.dtype)
        cur = open_buckets.setdefault(key, [[], 0])
        size = p.numel() * p.element_size()
        if cur[0] and cur[1] + size > cap:
            out.append(cur[0])
            cur = open_buckets[key] = [[], 0]
            cap = cap_bytes
        cur[0].append(i)
        cur[1] += size
    out.extend(b[0] for b in open_buckets.values() if b[0])
    return out


class DistributedDataParallel(Module):
    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
    ):
        super().__init__()
        dist = _dist()
        self.module = module
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        self._world = dist.get_world_size(self.process_group)  # raises if no process group is initialized

        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter that "
                "requires a gradient."
            )
        devices = {str(p.device) for _, p in named}
        is_cuda = any(d.startswith("cuda") for d in devices)
        if len(devices) > 1 or ((device_ids or output_device is not None) and not is_cuda):
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids {}, "
                "output_device {}, and module parameters {}.".format(device_ids, output_device, sorted(devices))
            )
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        self.device_ids = [device_ids[0]] if device_ids else None
        self.output_device = output_device if output_device is not None else (device_ids[0] if device_ids else None)
        self.device = named[0][1].device
        self._param_names = [n for n, _ in named]
        self._params = [p for _, p in named]

        self._verify_same_model(named)
        self._sync_module_states()

        cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        groups = _assign_buckets(self._params, cap, min(cap, _DEFAULT_FIRST_BUCKET_BYTES))
        self._buckets = [_Bucket([self._params[i] for i in g], g) for g in groups]
        self._where = {}  # param index -> (bucket, position in bucket)
        for b in self._buckets:
            for k, i in enumerate(b.indices):
                self._where[i] = (b, k)
        self._ready = [False] * len(self._params)
        self._used = [False] * len(self._params)
        self._next_bucket = 0  # buckets launch in index order on every rank
        self._expect_hooks = False  # set by a forward in grad mode outside no_sync(), as PyTorch decides at forward
        self._callback_queued = False
        self._comm_hook = None
        self._hooks = [p.register_post_accumulate_grad_hook(self._make_hook(i)) for i, p in enumerate(self._params)]

    # --- construction-time checks and state broadcast -------------------------------------------------------------

    def _verify_same_model(self, named):
        if self._world == 1:
            return
        dist = _dist()
        mine = [(tuple(p.shape), str(p.dtype)) for _, p in named]
        everyone = [None] * self._world
        dist.all_gather_object(everyone, mine, group=self.process_group)
        for r, theirs in enumerate(everyone):
            if len(theirs) != len(mine):
                raise RuntimeError(
                    "DDP expects same model across all ranks, but Rank {} has {} params, while rank {} "
                    "has inconsistent {} params.".format(dist.get_rank(self.process_group), len(mine), r, len(theirs))
                )
            for (name, _), a, b in zip(named, mine, theirs):
                if a != b:
                    raise RuntimeError(
                        "DDP expects same model across all ranks, but parameter {} has shape/dtype {} "
                        "on rank {} and {} on rank {}.".format(name, a, dist.get_rank(self.process_group), b, r)
                    )

    def _broadcast_coalesced(self, tensors):
        """Broadcasts tensors from the group's first rank, one flat tensor per (device, dtype)."""
        if self._world == 1 or not tensors:
            return
        dist = _dist()
        src = dist.get_global_rank(self.process_group, 0) if self.process_group is not dist.group.WORLD else 0
        groups = {}
        for t in tensors:
            groups.setdefault((str(t.device), t.dtype), []).append(t)
        with no_grad():
            for ts in groups.values():
                flat = _C.cat([t.reshape(-1) for t in ts])
                dist.broadcast(flat, src, group=self.process_group)
                off = 0
                for t in ts:
                    n = t.numel()
                    t.copy_(flat[off : off + n].view(t.shape))
                    off += n

    def _sync_module_states(self):
        self._broadcast_coalesced(list(self.module.parameters()) + list(self.module.buffers()))

    # --- backward: hooks, bucket launch, final callback -----------------------------------------------------------

    def _make_hook(self, i):
        def hook(param):
            if self._expect_hooks:
                self._mark_ready(i, used=True)

        return hook

    def _queue_finalize(self):
        if not self._callback_queued:
            self._callback_queued = True
            Variable._execution_engine.queue_callback(self._finalize)

    def _mark_ready(self, i, used):
        if self._ready[i]:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by the parameter {} ({}) being "
                "marked ready twice in one backward pass: it is used in a reentrant backward, or a module's output "
                "is used in several backward passes before DDP could reduce it. Use no_sync() for the passes before "
                "the last.".format(i, self._param_names[i])
            )
        self._queue_finalize()
        self._ready[i] = True
        self._used[i] = used
        bucket, _ = self._where[i]
        bucket.pending -= 1
        self._launch_ready()

    def _launch_ready(self):
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1

    def _launch(self, bucket):
        dist = _dist()
        with no_grad():
            for k, p in enumerate(bucket.params):
                slot = bucket.slot(k)
                g = p.grad
                if g is None or not self._used[bucket.indices[k]]:
                    slot.zero_()
                elif g.data_ptr() != slot.data_ptr():
                    slot.copy_(g)
            if self._comm_hook is not None:
                state, hook = self._comm_hook
                from ...distributed._grad_bucket import GradBucket

                bucket.work = hook(
                    state,
                    GradBucket(self._next_bucket, len(self._buckets), bucket.buffer, bucket.params, bucket.offsets),
                )
                return
            bucket.buffer.div_(self._world)
            bucket.work = dist.all_reduce(bucket.buffer, group=self.process_group, async_op=True)

    def _finalize(self):
        self._callback_queued = False
        dist = _dist()
        try:
            unready = [i for i, r in enumerate(self._ready) if not r]
            if unready and not self.find_unused_parameters:
                names = ", ".join(self._param_names[i] for i in unready)
                raise RuntimeError(
                    "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                    "indicates that your module has parameters that were not used in producing loss: {}. Enable "
                    "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                    "`torch.nn.parallel.DistributedDataParallel`, and make sure all `forward` function outputs "
                    "participate in calculating loss.".format(names)
                )
            for i in unready:  # find_unused_parameters: the forward walk should have marked these already
                self._mark_ready(i, used=False)
            globally_used = None
            if self.find_unused_parameters:
                mask = _C.tensor([1 if u else 0 for u in self._used], dtype=_C.int32, device=self.device)
                if self._world > 1:
                    dist.all_reduce(mask, group=self.process_group)
                globally_used = [v > 0 for v in mask.tolist()]
            with no_grad():
                for b in self._buckets:
                    if self._comm_hook is None:
                        b.work.wait()
                        reduced = b.buffer
                    else:  # a Future (or Work) whose value is the reduced flat tensor
                        reduced = b.work.wait()
                        if isinstance(reduced, (list, tuple)):
                            reduced = reduced[0]
                    self._write_back(b, reduced, globally_used)
        finally:
            self._reset()

    def _write_back(self, bucket, reduced, globally_used):
        for k, p in enumerate(bucket.params):
            i = bucket.indices[k]
            if globally_used is not None and not globally_used[i]:
                continue  # no rank used it: its .grad stays what it was (None), as in PyTorch
            if reduced is bucket.buffer:
                src = bucket.slot(k)
            else:
                src = reduced[bucket.offsets[k] : bucket.offsets[k] + p.numel()].view(p.shape)
            if self.gradient_as_bucket_view and reduced is bucket.buffer:
                if p.grad is None or p.grad.data_ptr() != src.data_ptr():
                    p.grad = src
            elif p.grad is None:
                p.grad = src.clone()
            else:
                p.grad.copy_(src)

    def _reset(self):
        for b in self._buckets:
            b.pending = len(b.params)
            b.work = None
        self._ready = [False] * len(self._params)
        self._used = [False] * len(self._params)
        self._next_bucket = 0
        self._expect_hooks = False

    # --- forward ---------------------------------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        if self._callback_queued or any(self._ready):
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new "
                "one: a backward pass of this DistributedDataParallel module did not finish."
            )
        if self.broadcast_buffers and self.require_forward_param_sync:
            self._broadcast_coalesced(list(self.module.buffers()))
        if self.device_ids:
            inputs = _to_device(inputs, self.device)
            kwargs = _to_device(kwargs, self.device)
        out = self.module(*inputs, **kwargs)
        self._expect_hooks = self.require_backward_grad_sync and _C.is_grad_enabled() and self._world > 1
        if self._expect_hooks and self.find_unused_parameters:
            self._mark_unused(out)
        return out

    def _mark_unused(self, out):
        """Marks ready, as unused, every parameter the output's autograd graph does not reach. The walk visits graph
        nodes, not tensor data."""
        reached = set()
        stack = [t.grad_fn for t in _tensors_in(out) if t.grad_fn is not None]
        reached_leaves = {id(t) for t in _tensors_in(out) if t.grad_fn is None and t.requires_grad}
        seen = {}  # id -> node: holding the wrappers keeps ids unique and one wrapper per graph node
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            for nxt, _ in node.next_functions:
                if nxt is None:
                    continue
                if nxt.name() == "AccumulateGrad":
                    reached.add(id(nxt.variable))
                else:
                    stack.append(nxt)
        unused = [i for i, p in enumerate(self._params) if id(p) not in reached and id(p) not in reached_leaves]
        if unused:
            # The hooks of used parameters queue the finalizer; a backward in which nothing is used still needs
            # the unused ones reduced, which happens when the finalizer runs.
            for i in unused:
                self._ready[i] = True
                self._used[i] = False
                self._where[i][0].pending -= 1
            self._launch_ready()

    # --- the rest of PyTorch's surface ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally for the forwards run inside (with their backward); the first synced
        backward afterwards reduces the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        """hook(state, bucket: GradBucket) -> a Future (or Work) whose value is the bucket's reduced flat tensor."""
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        self._comm_hook = (state, hook)

    def _get_ddp_logging_data(self):
        return {
            "world_size": self._world,
            "bucket_sizes": [b.buffer.numel() * b.buffer.element_size() for b in self._buckets],
            "find_unused_parameters": self.find_unused_parameters,
            "gradient_as_bucket_view": self.gradient_as_bucket_view,
        }


def _tensors_in(obj):
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _tensors_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _tensors_in(v)
