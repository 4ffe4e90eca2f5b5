"""ember.cuda's device API, streams, events, pinned memory and allocator statistics, and ember.backends.

The first half runs everywhere (here: ember built with CUDA on a machine without a GPU, where every function that
needs a device must raise a RuntimeError naming it); the second half runs where a GPU is present.
"""

import os
import subprocess
import sys
import textwrap

import pytest

import ember
from ember import _C

needs_gpu = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a CUDA device")
no_gpu = pytest.mark.skipif(ember.cuda.is_available(), reason="checks the behaviour without a CUDA device")

# What the error says without a device: built with CUDA but no GPU, or built without CUDA.
NO_DEVICE = "no CUDA device is available" if ember.cuda.is_built() else "built without CUDA"


def run_python(code, env=None):
    """Runs `code` in a fresh interpreter (CUDA initialisation and env vars are per process)."""
    e = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=e, timeout=300
    )


# ---------------------------------------------------------------------------------------------------------------
# Without a device


@no_gpu
def test_availability_without_a_device():
    assert ember.cuda.is_available() is False
    assert ember.cuda.device_count() == 0
    assert ember.cuda.is_initialized() is False
    assert ember.backends.mps.is_available() is False


@no_gpu
@pytest.mark.parametrize(
    "name, call",
    [
        ("current_device", lambda: ember.cuda.current_device()),
        ("set_device", lambda: ember.cuda.set_device(0)),
        ("synchronize", lambda: ember.cuda.synchronize()),
        ("get_device_name", lambda: ember.cuda.get_device_name()),
        ("get_device_properties", lambda: ember.cuda.get_device_properties(0)),
        ("get_device_capability", lambda: ember.cuda.get_device_capability()),
        ("mem_get_info", lambda: ember.cuda.mem_get_info()),
        ("init", lambda: ember.cuda.init()),
        ("Stream", lambda: ember.cuda.Stream()),
        ("Stream", lambda: ember.cuda.Stream(priority=-1)),
        ("current_stream", lambda: ember.cuda.current_stream()),
        ("default_stream", lambda: ember.cuda.default_stream()),
        ("Event.record", lambda: ember.cuda.Event().record()),
        ("Event.wait", lambda: ember.cuda.Event().wait()),
        ("device", lambda: ember.cuda.device(0).__enter__()),
        ("pin_memory", lambda: ember.zeros(3).pin_memory()),
        ("pin_memory", lambda: ember.empty(3, pin_memory=True)),
        ("pin_memory", lambda: ember.tensor([1.0], pin_memory=True)),
        ("pin_memory", lambda: ember.zeros_like(ember.zeros(2), pin_memory=True)),
    ],
)
def test_functions_that_need_a_device_raise_naming_themselves(name, call):
    with pytest.raises(RuntimeError, match=NO_DEVICE) as e:
        call()
    assert str(e.value).startswith(name + ":"), str(e.value)
    assert ember.cuda.is_initialized() is False


@no_gpu
def test_moving_a_tensor_to_cuda_raises_without_a_device():
    for call in (
        lambda: ember.zeros(3).cuda(),
        lambda: ember.zeros(3).to("cuda", non_blocking=True),
        lambda: ember.zeros(3, device="cuda"),
    ):
        with pytest.raises(RuntimeError, match=NO_DEVICE):
            call()


@no_gpu
def test_memory_functions_before_initialisation_report_nothing_and_do_not_initialise():
    assert ember.cuda.memory_allocated() == 0
    assert ember.cuda.max_memory_allocated() == 0
    assert ember.cuda.memory_reserved() == 0
    assert ember.cuda.max_memory_reserved() == 0
    assert ember.cuda.memory_allocated(0) == 0
    assert ember.cuda.memory_allocated("cuda:0") == 0
    assert ember.cuda.memory_stats() == {}
    assert ember.cuda.host_memory_stats() == {}
    assert ember.cuda.reset_peak_memory_stats() is None
    assert ember.cuda.reset_accumulated_memory_stats() is None
    assert ember.cuda.empty_cache() is None
    summary = ember.cuda.memory_summary()
    assert "Allocated memory" in summary and "GPU reserved memory" in summary
    assert ember.cuda.is_initialized() is False


def test_events_need_no_device_until_recorded():
    e = ember.cuda.Event(enable_timing=True, blocking=True)
    assert e.query() is True  # never recorded: nothing to wait for
    assert e.synchronize() is None
    assert e.cuda_event == 0 and e.device is None
    with pytest.raises(RuntimeError, match="interprocess"):
        ember.cuda.Event(interprocess=True)
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="elapsed_time"):
            e.elapsed_time(ember.cuda.Event(enable_timing=True))


def test_device_contexts_with_no_device_do_nothing():
    with ember.cuda.device(None):
        pass
    with ember.cuda.device(-1):
        pass
    with ember.cuda.device_of(ember.zeros(2)):  # a CPU tensor
        pass
    with ember.cuda.stream(None):
        pass
    assert ember.cuda.set_stream(None) is None
    with pytest.raises(ValueError, match="Expected a cuda device, but got"):
        ember.cuda.device("cpu")


def test_out_of_memory_error_is_a_runtime_error():
    assert ember.cuda.OutOfMemoryError is _C.OutOfMemoryError
    assert issubclass(ember.cuda.OutOfMemoryError, RuntimeError)


def test_pinned_memory_queries_and_non_blocking_on_the_cpu():
    t = ember.arange(6.0)
    assert t.is_pinned() is False
    assert t.to("cpu", non_blocking=True).data_ptr() == t.data_ptr()  # nothing to do
    u = ember.zeros(6)
    u.copy_(t, non_blocking=True)
    assert u.tolist() == t.tolist()
    assert t.to(ember.float64, non_blocking=True).tolist() == t.tolist()
    with pytest.raises(TypeError, match="ember.cuda.Stream"):
        t.record_stream(object())


def test_record_stream_needs_a_cuda_tensor():
    class FakeStream:
        device_index, cuda_stream = 0, 0

    with pytest.raises(RuntimeError, match="expected a CUDA tensor"):
        ember.zeros(2).record_stream(FakeStream())


# ---------------------------------------------------------------------------------------------------------------
# ember.backends


@pytest.fixture
def restore_flags():
    names = [
        "allow_tf32_matmul",
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
        "cudnn_enabled",
        "cudnn_benchmark",
        "cudnn_deterministic",
        "cudnn_allow_tf32",
    ]
    saved = {n: _C._cuda_get_flag(n) for n in names}
    yield
    for n, v in saved.items():
        _C._cuda_set_flag(n, v)


def test_backend_flags_have_pytorchs_defaults():
    assert ember.backends.cuda.matmul.allow_tf32 is False
    assert ember.backends.cuda.matmul.allow_fp16_reduced_precision_reduction is True
    assert ember.backends.cuda.matmul.allow_bf16_reduced_precision_reduction is True
    assert ember.backends.cudnn.enabled is True
    assert ember.backends.cudnn.benchmark is False
    assert ember.backends.cudnn.deterministic is False
    assert ember.backends.cudnn.allow_tf32 is True


@pytest.mark.parametrize(
    "module, attr, cname",
    [
        ("cuda", "allow_tf32", "allow_tf32_matmul"),
        ("cuda", "allow_fp16_reduced_precision_reduction", "allow_fp16_reduced_precision_reduction"),
        ("cuda", "allow_bf16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"),
        ("cudnn", "enabled", "cudnn_enabled"),
        ("cudnn", "benchmark", "cudnn_benchmark"),
        ("cudnn", "deterministic", "cudnn_deterministic"),
        ("cudnn", "allow_tf32", "cudnn_allow_tf32"),
    ],
)
def test_backend_flags_round_trip_and_reach_cpp(restore_flags, module, attr, cname):
    obj = ember.backends.cuda.matmul if module == "cuda" else ember.backends.cudnn
    for value in (True, False, True):
        setattr(obj, attr, value)
        assert getattr(obj, attr) is value
        assert _C._cuda_get_flag(cname) is value  # what the CUDA kernels read (ember::cuda::flags())


def test_unknown_backend_flags_raise(restore_flags):
    with pytest.raises(AttributeError):
        ember.backends.cuda.matmul.allow_tf64 = True
    with pytest.raises(ValueError, match="unknown CUDA backend flag"):
        _C._cuda_get_flag("nope")


def test_cudnn_flags_context_manager_sets_and_restores(restore_flags):
    cudnn = ember.backends.cudnn
    cudnn.benchmark = True
    with cudnn.flags(enabled=False, benchmark=False, deterministic=True, allow_tf32=False):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (False, False, True, False)
        assert _C._cuda_get_flag("cudnn_deterministic") is True
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (True, True, False, True)
    with pytest.raises(KeyError):
        with cudnn.flags(enabled=True, deterministic=True):
            raise KeyError("inside")
    assert (cudnn.enabled, cudnn.deterministic) == (True, False)


def test_cudnn_version_and_availability_agree():
    v = ember.backends.cudnn.version()
    assert ember.backends.cudnn.is_available() is (v is not None and ember.cuda.is_built())
    if v is not None:
        assert isinstance(v, int) and v >= 8000
    assert ember.backends.cuda.is_built() is ember.cuda.is_built()


# ---------------------------------------------------------------------------------------------------------------
# With a device

MiB = 1 << 20


def busy(n=30, mib=128):
    """Enqueues n device-to-device copies of `mib` MiB on the current stream: GPU work that takes milliseconds."""
    a = ember.empty(mib * MiB // 4, device="cuda")
    b = ember.empty_like(a)
    for _ in range(n):
        b.copy_(a)
        a.copy_(b)
    return a, b


@needs_gpu
def test_device_queries():
    assert ember.cuda.device_count() >= 1
    assert ember.cuda.current_device() == 0
    assert ember.cuda.is_initialized()
    p = ember.cuda.get_device_properties(0)
    assert p.total_memory > 0 and p.multi_processor_count > 0
    assert (p.major, p.minor) == ember.cuda.get_device_capability() and p.major >= 7
    assert ember.cuda.get_device_name() == p.name and "_CudaDeviceProperties(name=" in repr(p)
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total == p.total_memory
    with ember.cuda.device(0):
        assert ember.cuda.current_device() == 0
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        ember.cuda.get_device_properties(ember.cuda.device_count())


@needs_gpu
def test_streams_current_default_and_context():
    default = ember.cuda.default_stream()
    assert ember.cuda.current_stream() == default and default.cuda_stream == 0
    s = ember.cuda.Stream()
    hi = ember.cuda.Stream(priority=-1)
    assert s != default and s.cuda_stream != 0
    assert hi.priority <= s.priority
    with ember.cuda.stream(s):
        assert ember.cuda.current_stream() == s
    assert ember.cuda.current_stream() == default
    ember.cuda.set_stream(s)
    assert ember.cuda.current_stream() == s
    ember.cuda.set_stream(default)


@needs_gpu
def test_stream_ordering_with_wait_stream_and_events():
    s = ember.cuda.Stream()
    x = ember.full((MiB,), 3.0, device="cuda")
    s.wait_stream(ember.cuda.current_stream())  # x is written on the default stream
    with ember.cuda.stream(s):
        busy()
        y = x.clone()
        done = s.record_event()
    assert s.query() is False or done.query() is True  # either still running or already done
    ember.cuda.current_stream().wait_event(done)
    assert y.sum().item() == 3.0 * MiB
    s.synchronize()
    assert s.query() is True and done.query() is True


@needs_gpu
def test_event_elapsed_time_of_real_work():
    start, end = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    start.record()
    busy()
    end.record()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) > 0
    with pytest.raises(RuntimeError, match="enable_timing"):
        ember.cuda.Event().elapsed_time(end)


@needs_gpu
def test_caching_allocator_reuses_memory_after_a_warm_up_iteration():
    def step():
        a = ember.empty(MiB // 4, device="cuda")
        b = ember.empty(3 * MiB, device="cuda")
        c = ember.empty(40 * MiB, device="cuda")
        del a, b, c

    step()
    before = ember.cuda.memory_stats()["num_device_alloc"]
    for _ in range(10):
        step()
    assert ember.cuda.memory_stats()["num_device_alloc"] == before


@needs_gpu
def test_memory_stats_track_tensors():
    ember.cuda.synchronize()
    base = ember.cuda.memory_allocated()
    ember.cuda.reset_peak_memory_stats()
    t = ember.empty(1000, dtype=ember.uint8, device="cuda")  # rounded up to 1024 bytes
    assert ember.cuda.memory_allocated() == base + 1024
    assert ember.cuda.max_memory_allocated() >= base + 1024
    assert ember.cuda.memory_reserved() >= ember.cuda.memory_allocated()
    stats = ember.cuda.memory_stats()
    for key in (
        "allocated_bytes.all.current",
        "allocated_bytes.all.peak",
        "allocated_bytes.all.allocated",
        "allocated_bytes.all.freed",
        "reserved_bytes.all.current",
        "active_bytes.all.current",
        "num_alloc_retries",
        "num_ooms",
        "num_device_alloc",
        "num_device_free",
    ):
        assert key in stats
    del t
    assert ember.cuda.memory_allocated() == base
    assert "Allocated memory" in ember.cuda.memory_summary()


@needs_gpu
def test_record_stream_defers_reuse_until_the_other_stream_is_done():
    ember.cuda.empty_cache()  # no cached 16 MiB blocks from other tests
    s = ember.cuda.Stream()
    x = ember.empty(4 * MiB, device="cuda")
    ptr = x.data_ptr()
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        busy(n=200)  # s is busy for a while ...
        x.add_(1)  # ... then uses x
    x.record_stream(s)
    del x
    y = ember.empty(4 * MiB, device="cuda")  # the default stream must not get x's block yet
    assert y.data_ptr() != ptr
    s.synchronize()
    z = ember.empty(4 * MiB, device="cuda")  # the event has completed: reusable
    assert z.data_ptr() == ptr


@needs_gpu
def test_out_of_memory_is_catchable_and_the_process_recovers():
    total = ember.cuda.get_device_properties(0).total_memory
    ooms = ember.cuda.memory_stats()["num_ooms"]
    with pytest.raises(ember.cuda.OutOfMemoryError) as e:
        ember.empty(total + (1 << 30), dtype=ember.uint8, device="cuda")
    msg = str(e.value)
    for part in ("out of memory", "Tried to allocate", "allocated", "reserved", "free"):
        assert part in msg, msg
    assert isinstance(e.value, RuntimeError)
    assert ember.cuda.memory_stats()["num_ooms"] == ooms + 1
    t = ember.full((1000,), 2.0, device="cuda")
    assert t.sum().item() == 2000.0


@needs_gpu
def test_empty_cache_returns_cached_memory():
    t = ember.empty(100 * MiB, dtype=ember.uint8, device="cuda")
    del t
    reserved = ember.cuda.memory_reserved()
    assert reserved >= 100 * MiB
    ember.cuda.empty_cache()
    assert ember.cuda.memory_reserved() <= reserved - 100 * MiB


@needs_gpu
def test_pinned_non_blocking_copies_round_trip():
    x = ember.arange(float(MiB))
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned()
    assert p.pin_memory().data_ptr() == p.data_ptr()
    assert ember.empty(10, pin_memory=True).is_pinned()
    assert p[10:].is_pinned()  # a view of a pinned block
    for _ in range(3):
        d = p.to("cuda", non_blocking=True)
        back = d.to("cpu", non_blocking=True)  # lands in pinned memory, asynchronously
        assert back.is_pinned()
        ember.cuda.current_stream().synchronize()
        assert back.tolist() == x.tolist()
        c = d.cuda(non_blocking=True).cpu()  # pageable: synchronous
        assert not c.is_pinned() and c.tolist() == x.tolist()
    host = ember.cuda.host_memory_stats()
    assert host["num_host_alloc"] >= 2 and host["allocated_bytes.current"] > 0


@needs_gpu
def test_pinned_blocks_are_not_reused_while_a_copy_may_use_them():
    s = ember.cuda.current_stream()
    busy(n=200)
    p = ember.arange(float(MiB)).pin_memory()
    ptr = p.data_ptr()
    d = p.to("cuda", non_blocking=True)  # queued behind the busy work
    del p
    q = ember.empty(MiB, pin_memory=True)  # same size class, but the copy may still read p's block
    assert q.data_ptr() != ptr
    s.synchronize()
    assert d[-1].item() == MiB - 1


@needs_gpu
def test_using_cuda_in_a_forked_child_raises_and_suggests_spawn():
    r = run_python("""
        import os, ember
        ember.zeros(1, device="cuda")
        pid = os.fork()
        if pid == 0:
            try:
                ember.zeros(1, device="cuda")
                os._exit(3)
            except RuntimeError as e:
                os._exit(0 if "Cannot re-initialize CUDA in forked subprocess" in str(e) and "spawn" in str(e) else 4)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
    """)
    assert r.returncode == 0, r.stderr
    assert "child 0" in r.stdout, r.stdout + r.stderr


@needs_gpu
def test_no_caching_env_makes_every_allocation_a_device_call():
    r = run_python(
        """
        import ember
        ember.zeros(1, device="cuda")
        n0 = ember.cuda.memory_stats()["num_device_alloc"]
        for _ in range(5):
            t = ember.empty(1000, device="cuda")
            del t
        print("grew", ember.cuda.memory_stats()["num_device_alloc"] - n0)
    """,
        env={"EMBER_CUDA_NO_CACHING": "1"},
    )
    assert r.returncode == 0, r.stderr
    assert "grew 5" in r.stdout, r.stdout


# ---------------------------------------------------------------------------------------------------------------
# The rest of torch.cuda's API: generators, allocator controls, sync debug mode, NVTX, small functions, legacy types


@no_gpu
@pytest.mark.parametrize(
    "name, call",
    [
        ("get_rng_state", lambda: ember.cuda.get_rng_state()),
        ("get_rng_state", lambda: ember.cuda.get_rng_state(0)),
        ("set_rng_state", lambda: ember.cuda.set_rng_state(ember.get_rng_state())),
        ("get_rng_state_all", lambda: ember.cuda.get_rng_state_all()),
        ("set_rng_state_all", lambda: ember.cuda.set_rng_state_all([])),
        ("initial_seed", lambda: ember.cuda.initial_seed()),
        ("set_per_process_memory_fraction", lambda: ember.cuda.set_per_process_memory_fraction(0.5)),
        ("caching_allocator_alloc", lambda: ember.cuda.caching_allocator_alloc(100)),
        ("set_sync_debug_mode", lambda: ember.cuda.set_sync_debug_mode("warn")),
        ("get_sync_debug_mode", lambda: ember.cuda.get_sync_debug_mode()),
        ("ExternalStream", lambda: ember.cuda.ExternalStream(1)),
        ("can_device_access_peer", lambda: ember.cuda.can_device_access_peer(0, 0)),
        ("current_blas_handle", lambda: ember.cuda.current_blas_handle()),
        ("ipc_collect", lambda: ember.cuda.ipc_collect()),
        ("device 'cuda'", lambda: ember.cuda.FloatTensor(2, 3)),
        ("device 'cuda'", lambda: ember.zeros(2).type("torch.cuda.FloatTensor")),
    ],
)
def test_more_functions_that_need_a_device_raise_naming_themselves(name, call):
    test_functions_that_need_a_device_raise_naming_themselves(name, call)


@no_gpu
def test_seeding_and_queries_without_a_device_do_nothing_as_pytorchs():
    # PyTorch's seeding functions are silent no-ops without CUDA; the queries answer "nothing here".
    for f in (
        lambda: ember.cuda.manual_seed(3),
        lambda: ember.cuda.manual_seed_all(3),
        ember.cuda.seed,
        ember.cuda.seed_all,
    ):
        assert f() is None
    assert ember.cuda.default_generators == ()
    assert ember.cuda.get_arch_list() == []
    assert ember.cuda.get_gencode_flags() == ""
    assert ember.cuda.is_bf16_supported() is False
    assert ember.cuda.is_tf32_supported() is False
    assert ember.cuda.get_allocator_backend() == "native"
    assert ember.cuda.is_current_stream_capturing() is False
    assert ember.cuda.memory_snapshot() == []
    assert ember.cuda.memory_stats_as_nested_dict() == {}
    assert ember.cuda.caching_allocator_delete(0) is None  # a null pointer: nothing to give back
    assert ember.cuda.is_initialized() is False


def test_flags_and_error_types():
    assert ember.cuda.has_half is True and ember.cuda.has_magma is False
    assert issubclass(ember.cuda.CudaError, RuntimeError)
    assert issubclass(ember.cuda.DeferredCudaCallError, Exception)
    assert ember.cuda.check_error(0) is None
    with pytest.raises(ember.cuda.CudaError, match=r"\(2\)$") as e:
        ember.cuda.check_error(2)
    assert e.value.code == 2
    if ember.cuda.is_built():
        assert str(e.value) == "out of memory (2)"  # cudaGetErrorString(cudaErrorMemoryAllocation)
    for name in ("CUDAGraph", "graph", "make_graphed_callables"):  # not implemented (docs/differences.md)
        assert not hasattr(ember.cuda, name)
    with pytest.raises(AttributeError, match="has no attribute 'nonexistent'"):
        ember.cuda.nonexistent  # noqa: B018


def test_memory_fraction_argument_errors_are_pytorchs():
    with pytest.raises(TypeError, match="Invalid type for fraction argument, must be `float`"):
        ember.cuda.set_per_process_memory_fraction(1)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"Invalid fraction value: {bad}. Allowed range: 0~1"):
            ember.cuda.set_per_process_memory_fraction(bad)


def test_deprecated_reset_functions_warn_like_pytorchs():
    for f in (ember.cuda.reset_max_memory_cached, ember.cuda.reset_max_memory_allocated):
        with pytest.warns(FutureWarning, match="reset_peak_memory_stats, which resets /all/ peak memory stats"):
            assert f() is None


def test_nvml_functions_without_pynvml_are_pytorchs():
    try:
        import pynvml  # noqa: F401
    except ModuleNotFoundError:
        pass
    else:
        pytest.skip("pynvml is installed")
    for f in (
        ember.cuda.memory_usage,
        ember.cuda.utilization,
        ember.cuda.temperature,
        ember.cuda.power_draw,
        ember.cuda.clock_rate,
        ember.cuda.device_memory_used,
    ):
        with pytest.raises(ModuleNotFoundError, match="pynvml does not seem to be installed"):
            f()
    assert ember.cuda.list_gpu_processes() == "pynvml module not found, please install pynvml"


def test_nvtx_in_this_build():
    nvtx = ember.cuda.nvtx
    if not ember.cuda.is_built():  # PyTorch's stub without CUDA
        for call in (
            lambda: nvtx.range_push("a"),
            nvtx.range_pop,
            lambda: nvtx.mark("a"),
            lambda: nvtx.range_start("a"),
            lambda: nvtx.range_end(1),
        ):
            with pytest.raises(RuntimeError, match="NVTX functions not installed. Are you sure you have a CUDA build"):
                call()
        return
    # Built with CUDA: no device is needed, and without a profiler the calls do nothing.
    assert isinstance(nvtx.range_push("outer"), int)
    assert isinstance(nvtx.range_pop(), int)
    assert nvtx.mark("here") is None
    rid = nvtx.range_start("async")
    assert isinstance(rid, int)
    assert nvtx.range_end(rid) is None
    with nvtx.range("step {}", 3):
        pass

    @nvtx.range("decorated")
    def f(x):
        return x + 1

    assert f(1) == 2


def test_legacy_tensor_types_construct_and_check_cpu_tensors():
    x = ember.FloatTensor(2, 3)
    assert x.shape == (2, 3) and x.dtype == ember.float32 and x.device.type == "cpu"
    assert isinstance(x, ember.FloatTensor) and isinstance(x, ember.Tensor)
    assert not isinstance(x, ember.DoubleTensor) and not isinstance(x, ember.cuda.FloatTensor)
    assert not isinstance(3.0, ember.FloatTensor)
    y = ember.LongTensor([1, 2, 3])
    assert y.dtype == ember.int64 and y.tolist() == [1, 2, 3]
    assert ember.FloatTensor().shape == (0,)
    assert ember.FloatTensor(ember.Size([4, 1])).shape == (4, 1)
    assert ember.DoubleTensor([[1.5]]).tolist() == [[1.5]]
    assert ember.FloatTensor(x) is x  # a tensor of the type itself
    with pytest.raises(TypeError, match="expected ember.FloatTensor"):
        ember.FloatTensor(y)
    with pytest.raises(TypeError, match="expected sizes"):
        ember.FloatTensor(2, "a")
    for name, dt in [
        ("FloatTensor", ember.float32),
        ("DoubleTensor", ember.float64),
        ("HalfTensor", ember.float16),
        ("BFloat16Tensor", ember.bfloat16),
        ("LongTensor", ember.int64),
        ("IntTensor", ember.int32),
        ("ShortTensor", ember.int16),
        ("CharTensor", ember.int8),
        ("ByteTensor", ember.uint8),
        ("BoolTensor", ember.bool),
    ]:
        cpu_t, cuda_t = getattr(ember, name), getattr(ember.cuda, name)
        assert cpu_t.dtype == dt and cuda_t.dtype == dt
        assert cpu_t.is_cuda is False and cuda_t.is_cuda is True
        assert repr(cpu_t) == f"<class 'ember.{name}'>" and repr(cuda_t) == f"<class 'ember.cuda.{name}'>"
        t = ember.zeros(2, dtype=dt)
        assert isinstance(t, cpu_t) and not isinstance(t, cuda_t)
        assert t.type() == f"ember.{name}"


def test_tensor_type_converts_to_legacy_types_and_their_names():
    x = ember.tensor([1.5, 2.5])
    d = x.type(ember.DoubleTensor)
    assert d.dtype == ember.float64 and d.tolist() == [1.5, 2.5]
    assert x.type("torch.IntTensor").dtype == ember.int32
    assert x.type("ember.LongTensor").tolist() == [1, 2]
    assert x.type(ember.FloatTensor) is x
    assert x.type(ember.float16).dtype == ember.float16  # a dtype, as before
    with pytest.raises(ValueError, match="invalid type: 'torch.NopeTensor'"):
        x.type("torch.NopeTensor")


# ---- with a GPU


@needs_gpu
def test_cuda_rng_state_round_trip_and_seeds():
    gens = ember.cuda.default_generators
    assert len(gens) == ember.cuda.device_count() and isinstance(gens[0], ember.Generator)
    assert gens[0].device == ember.device("cuda:0")
    ember.cuda.manual_seed(1234)
    assert ember.cuda.initial_seed() == 1234
    state = ember.cuda.get_rng_state()
    assert state.dtype == ember.uint8 and state.device.type == "cpu" and state.shape == (16,)
    a = ember.randn(1000, device="cuda")
    b = ember.randn(1000, device="cuda")
    assert not ember.equal(a, b)
    ember.cuda.set_rng_state(state)
    assert ember.equal(ember.randn(1000, device="cuda"), a)
    # Note [Random numbers]: the CUDA generator draws the CPU's numbers for the same seed and offset.
    ember.manual_seed(1234)
    cpu = ember.randn(1000)
    ember.cuda.set_rng_state(state, device="cuda:0")
    assert ember.allclose(ember.randn(1000, device="cuda").cpu(), cpu, rtol=1e-5, atol=1e-6)
    states = ember.cuda.get_rng_state_all()
    assert len(states) == ember.cuda.device_count()
    ember.cuda.set_rng_state_all(states)
    ember.cuda.seed()
    s1 = ember.cuda.initial_seed()
    ember.cuda.seed_all()
    assert ember.cuda.initial_seed() != s1  # 64 random bits twice: equal with probability 2^-64
    ember.cuda.manual_seed_all(7)
    assert all(g.initial_seed() == 7 for g in ember.cuda.default_generators)


@needs_gpu
def test_memory_fraction_limits_reserved_memory_then_recovers():
    total = ember.cuda.get_device_properties(0).total_memory
    ember.cuda.empty_cache()
    try:
        ember.cuda.set_per_process_memory_fraction(0.05)
        limit = int(0.05 * total)
        ooms = ember.cuda.memory_stats()["num_ooms"]
        with pytest.raises(ember.cuda.OutOfMemoryError, match="allowed") as e:
            ember.empty(limit + (64 << 20), dtype=ember.uint8, device="cuda")
        assert "Tried to allocate" in str(e.value)
        assert ember.cuda.memory_stats()["num_ooms"] == ooms + 1
        assert ember.cuda.memory_reserved() <= limit
        t = ember.full((1000,), 2.0, device="cuda")  # small requests still fit under the limit
        assert t.sum().item() == 2000.0
    finally:
        ember.cuda.set_per_process_memory_fraction(1.0)
    big = ember.empty(limit + (64 << 20), dtype=ember.uint8, device="cuda")  # the limit is lifted
    assert big.numel() == limit + (64 << 20)


@needs_gpu
def test_memory_snapshot_describes_segments_and_blocks():
    ember.cuda.empty_cache()
    t = ember.empty(1000, dtype=ember.uint8, device="cuda")
    u = ember.empty(3 * MiB, dtype=ember.uint8, device="cuda")
    snap = ember.cuda.memory_snapshot()
    keys = {
        "device",
        "address",
        "total_size",
        "allocated_size",
        "active_size",
        "requested_size",
        "stream",
        "segment_type",
        "blocks",
    }
    assert snap and all(keys <= set(s) for s in snap)
    blocks = {b["address"]: (s, b) for s in snap for b in s["blocks"]}
    seg, block = blocks[t.data_ptr()]
    assert seg["segment_type"] == "small" and seg["device"] == 0
    assert block["state"] == "active_allocated" and block["size"] == 1024 and 1000 <= block["requested_size"] <= 1024
    assert sum(b["size"] for b in seg["blocks"]) == seg["total_size"]
    seg, block = blocks[u.data_ptr()]
    assert seg["segment_type"] == "large" and block["size"] == 3 * MiB
    assert {b["state"] for s in snap for b in s["blocks"]} <= {"active_allocated", "active_pending_free", "inactive"}
    nested = ember.cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == ember.cuda.memory_allocated()
    assert nested["num_device_alloc"] == ember.cuda.memory_stats()["num_device_alloc"]
    del t, u


@needs_gpu
def test_caching_allocator_alloc_and_delete():
    base = ember.cuda.memory_allocated()
    p = ember.cuda.caching_allocator_alloc(1000)
    assert isinstance(p, int) and p != 0
    assert ember.cuda.memory_allocated() == base + 1024
    ember.cuda.caching_allocator_delete(p)
    assert ember.cuda.memory_allocated() == base
    s = ember.cuda.Stream()
    q = ember.cuda.caching_allocator_alloc(4096, device=0, stream=s)
    assert ember.cuda.caching_allocator_alloc(0) == 0
    ember.cuda.caching_allocator_delete(q)
    with pytest.raises(TypeError, match="Invalid type for stream argument"):
        ember.cuda.caching_allocator_alloc(10, stream="s")
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        ember.cuda.caching_allocator_delete(q)  # already given back


@needs_gpu
def test_sync_debug_mode_warns_or_raises_at_host_waits():
    import warnings

    x = ember.arange(6.0, device="cuda")
    assert ember.cuda.get_sync_debug_mode() == 0
    try:
        ember.cuda.set_sync_debug_mode("error")
        assert ember.cuda.get_sync_debug_mode() == 2
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation: item"):
            x.sum().item()
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation: nonzero"):
            ember.nonzero(x)
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
            x.cpu()
        y = (x * 2).add_(1)  # no host wait: fine in 'error' mode
        ember.cuda.synchronize()  # an explicit wait is exempt
        ember.cuda.set_sync_debug_mode(1)
        with pytest.warns(UserWarning, match="called a synchronizing CUDA operation: item"):
            assert y.sum().item() == 36.0
        ember.cuda.set_sync_debug_mode("default")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert x.sum().item() == 15.0
        with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
            ember.cuda.set_sync_debug_mode("loud")
        with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
            ember.cuda.set_sync_debug_mode(3)
    finally:
        ember.cuda.set_sync_debug_mode(0)
    assert x.sum().item() == 15.0  # the process works on after the errors


@needs_gpu
def test_external_stream_wraps_a_foreign_handle():
    s = ember.cuda.Stream()
    e = ember.cuda.ExternalStream(s.cuda_stream)
    assert isinstance(e, ember.cuda.Stream) and e == s and e.device_index == ember.cuda.current_device()
    x = ember.ones(1000, device="cuda")
    e.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(e):
        y = x * 3
        assert ember.cuda.current_stream() == e
    e.synchronize()
    assert y.sum().item() == 3000.0
    assert ember.cuda.current_stream() == ember.cuda.default_stream()
    with pytest.raises(TypeError, match="stream_ptr must be an int"):
        ember.cuda.ExternalStream("0x1")
    g = ember.cuda.get_stream_from_external(s.cuda_stream, device=0)
    assert isinstance(g, ember.cuda.ExternalStream) and g == s


@needs_gpu
def test_small_device_queries():
    major, minor = ember.cuda.get_device_capability()
    assert ember.cuda.get_arch_list() == ["sm_90"]
    assert ember.cuda.get_gencode_flags() == "-gencode compute=compute_90,code=sm_90"
    assert ember.cuda.is_bf16_supported() is (major >= 8)
    assert ember.cuda.is_tf32_supported() is (major >= 8)
    assert ember.cuda.can_device_access_peer(0, 0) is False
    with pytest.raises(AssertionError, match="Invalid peer device id"):
        ember.cuda.can_device_access_peer(0, ember.cuda.device_count())
    ember.ones(4, 4, device="cuda") @ ember.ones(4, 4, device="cuda")
    h = ember.cuda.current_blas_handle()
    assert isinstance(h, int) and h != 0 and ember.cuda.current_blas_handle() == h
    assert ember.cuda.ipc_collect() is None
    assert ember.cuda.is_current_stream_capturing() is False
    try:
        import pynvml  # noqa: F401
    except ModuleNotFoundError:
        return
    assert 0 <= ember.cuda.utilization() <= 100 and 0 <= ember.cuda.memory_usage() <= 100
    assert 0 < ember.cuda.temperature() < 150 and ember.cuda.power_draw() > 0 and ember.cuda.clock_rate() > 0
    assert ember.cuda.device_memory_used() > 0
    assert ember.cuda.list_gpu_processes().startswith("GPU:0")


@needs_gpu
def test_legacy_cuda_tensor_types():
    x = ember.cuda.FloatTensor(2, 3)
    assert x.is_cuda and x.dtype == ember.float32 and x.shape == (2, 3)
    assert isinstance(x, ember.cuda.FloatTensor) and not isinstance(x, ember.FloatTensor)
    assert x.type() == "ember.cuda.FloatTensor"
    y = ember.cuda.LongTensor([1, 2])
    assert y.is_cuda and y.tolist() == [1, 2]
    z = ember.tensor([1.5]).type("torch.cuda.HalfTensor")
    assert z.is_cuda and z.dtype == ember.float16
    assert z.type(ember.FloatTensor).device.type == "cpu"
