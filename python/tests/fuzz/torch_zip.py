"""Mutation fuzzing of ember's PyTorch checkpoint reader (ember._torch_load).

    python python/tests/fuzz/torch_zip.py N [seed]

Mutates the checked-in fixtures (python/tests/fixtures/torch/*.pt) N times: bit flips, byte sets,
truncation, insertion and deletion on the whole file, and the same mutations (plus integer splices) inside
data.pkl and the storage members, re-packed into a valid zip so that the unpickler and the storage checks
are reached. Each input must load or raise RuntimeError / pickle.UnpicklingError, within a time limit,
without allocating more than the file justifies (NumPy allocations in the loader are watched, and the
address space is capped unless running under AddressSanitizer). A loaded result is walked and every
tensor in it is summed, so that out-of-bounds views would be touched. Prints the outcome counts; exits 1 on
any failure (the failing inputs are written to $FUZZ_FAILURES or ./torch_zip_failures/).
"""

import importlib.util
import io
import os
import pickle
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if importlib.util.find_spec("ember") is None:  # run from a source checkout without an installed ember: python/
    # (appended, not prepended: a test run that imports this module must not make its spawned children find the
    # source package, which has no extension module, before the built one)
    sys.path.append(os.path.join(os.path.dirname(os.path.dirname(HERE)), ""))

import numpy as np  # noqa: E402
from torch_ckpt_util import FIXTURES, make_zip, zip_members  # noqa: E402

import ember  # noqa: E402
from ember import _torch_load  # noqa: E402

EXPECTED = (RuntimeError, pickle.UnpicklingError)
TIME_LIMIT_S = 10.0
INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0x4B, 0x4A, 0x8A, 0x52, 0x2E, 0x28, 0x74, 0x63]
BIG_INTS = [0, 1, -1, 2**31 - 1, 2**31, 2**32, 2**40, 2**62, 2**63 - 1, 2**63, 2**64, -(2**63), 10**30]


class Failure(Exception):
    pass


class _WatchedNumpy:
    """Stands in for the loader's `np` and refuses any allocation larger than the input file: the loader
    must check a size against the file before it allocates."""

    def __init__(self):
        self.limit = None

    def empty(self, shape, *args, **kwargs):
        n = int(np.prod(shape)) if not isinstance(shape, int) else shape
        if self.limit is not None and n > self.limit:
            raise Failure(f"np.empty({n}) for a {self.limit}-byte input")
        return np.empty(shape, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(np, name)


WATCH = _WatchedNumpy()
_torch_load.np = WATCH


def under_asan():
    return "asan" in os.environ.get("LD_PRELOAD", "") or "ASAN_OPTIONS" in os.environ


def load_corpus():
    corpus = []
    for name in sorted(os.listdir(FIXTURES)):
        if name.endswith(".pt"):
            with open(os.path.join(FIXTURES, name), "rb") as f:
                corpus.append((name, f.read()))
    return corpus


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 8])):
        kind = rng.randrange(6)
        if not data:
            data += bytes([rng.randrange(256)])
            continue
        i = rng.randrange(len(data))
        if kind == 0:  # bit flip
            data[i] ^= 1 << rng.randrange(8)
        elif kind == 1:  # byte set
            data[i] = rng.choice(INTERESTING + [rng.randrange(256)])
        elif kind == 2:  # truncation
            del data[i:]
        elif kind == 3:  # insertion
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.choice([1, 2, 4, 8, 64])))
        elif kind == 4:  # deletion of a range
            del data[i : i + rng.choice([1, 2, 4, 16, 256])]
        else:  # duplicate a range somewhere else
            j = rng.randrange(len(data))
            data[j:j] = data[i : i + rng.choice([1, 4, 16, 128])]
    return bytes(data)


def splice_int(rng, pkl):
    """Replaces one small-int opcode (BININT1 'K' x) with an extreme integer: sizes, strides, offsets and
    storage element counts all pass through these."""
    spots = [i for i in range(len(pkl) - 1) if pkl[i] == 0x4B]
    if not spots:
        return pkl
    i = rng.choice(spots)
    v = rng.choice(BIG_INTS + [rng.randrange(-300, 300)])
    n = (v.bit_length() + 8) // 8
    return pkl[:i] + b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True) + pkl[i + 2 :]


def mutate(rng, data):
    if data[:2] != b"PK" or rng.random() < 0.35:
        return mutate_bytes(rng, data)
    try:
        members = zip_members(data)
    except Exception:
        return mutate_bytes(rng, data)
    pkl_index = [i for i, (n, _) in enumerate(members) if n.endswith("/data.pkl")]
    r = rng.random()
    if pkl_index and r < 0.7:  # the unpickler and the rebuild functions
        i = pkl_index[0]
        name, body = members[i]
        body = splice_int(rng, body) if rng.random() < 0.3 else mutate_bytes(rng, body)
        members[i] = (name, body)
    elif r < 0.85:  # a storage member's size or bytes
        idx = [i for i, (n, _) in enumerate(members) if "/data/" in n]
        if idx:
            i = rng.choice(idx)
            name, body = members[i]
            members[i] = (name, mutate_bytes(rng, body))
    else:  # member names and the member list
        i = rng.randrange(len(members))
        name, body = members[i]
        if rng.random() < 0.5:
            del members[i]
        else:
            members[i] = (mutate_bytes(rng, name.encode()).decode("utf-8", "replace"), body)
    try:
        return make_zip(members)
    except Exception:
        return mutate_bytes(rng, data)


def touch(obj):
    """Walks a loaded object and sums every tensor in it (reads every element of every view)."""
    stack, seen, n = [obj], set(), 0
    while stack and n < 100000:
        o = stack.pop()
        n += 1
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, ember.Tensor):
            t = o.detach()
            if t.numel():
                # with non-negative strides the first and last elements are the lowest and highest addresses
                t[(0,) * t.dim()].item()
                t[tuple(s - 1 for s in t.shape)].item()
            if t.numel() <= 1 << 20:  # a huge expanded (stride 0) view would take long to sum
                t.double().sum().item() if t.dtype != ember.bool else t.any().item()
        elif isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)


def _alarm(signum, frame):
    raise Failure(f"took longer than {TIME_LIMIT_S} s")


def run_one(data, tmpdir, use_file, mmap):
    WATCH.limit = len(data)
    if use_file:
        path = os.path.join(tmpdir, "input.pt")
        with open(path, "wb") as f:
            f.write(data)
        src = path
    else:
        src = io.BytesIO(data)
    try:
        result = _torch_load.load_torch_file(src, mmap=mmap)
    except EXPECTED as e:
        msg = str(e)
        if not msg.startswith("ember.load"):
            raise Failure(f"{type(e).__name__} without ember.load's context: {msg[:200]}") from e
        return type(e).__name__
    finally:
        WATCH.limit = (
            None  # the watch is process-wide: later loads in the same process (other tests) are not fuzz inputs
        )
    touch(result)
    return "loaded"


def run(n, seed=0, log=print, failures_dir=None):
    """Runs n mutations; returns (counts, failures)."""
    rng = random.Random(seed)
    corpus = load_corpus()
    counts, failures = {}, []
    # noise from mutated inputs: pickletools decoding a protocol-0 string, zipfile writing a duplicate name
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="pickletools")
    warnings.filterwarnings("ignore", message="Duplicate name")
    old = signal.signal(signal.SIGALRM, _alarm) if hasattr(signal, "SIGALRM") else None
    slowest = 0.0
    with tempfile.TemporaryDirectory() as tmpdir:
        for it in range(n):
            name, base = corpus[rng.randrange(len(corpus))]
            data = mutate(rng, base)
            use_file = rng.random() < 0.1
            mmap = use_file and rng.random() < 0.5
            start = time.perf_counter()
            if old is not None:
                signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT_S * 2)
            try:
                outcome = run_one(data, tmpdir, use_file, mmap)
                elapsed = time.perf_counter() - start
                if elapsed > TIME_LIMIT_S:
                    raise Failure(f"took {elapsed:.1f} s")
                slowest = max(slowest, elapsed)
            except BaseException as e:  # noqa: B902 - everything else is a failure, KeyboardInterrupt aside
                if isinstance(e, KeyboardInterrupt):
                    raise
                outcome = "FAILURE"
                text = f"iteration {it} (from {name}, {len(data)} bytes): {type(e).__name__}: {e}"
                failures.append(text)
                if log:
                    log(text)
                    log("".join(traceback.format_exception(type(e), e, e.__traceback__))[-3000:])
                if failures_dir:
                    os.makedirs(failures_dir, exist_ok=True)
                    with open(os.path.join(failures_dir, f"fail_{seed}_{it}.pt"), "wb") as f:
                        f.write(data)
            finally:
                if old is not None:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            counts[outcome] = counts.get(outcome, 0) + 1
            if log and (it + 1) % 10000 == 0:
                log(f"  {it + 1} iterations: {counts}")
    if old is not None:
        signal.signal(signal.SIGALRM, old)
    counts["slowest_s"] = round(slowest, 4)
    return counts, failures


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    n = int(argv[1])
    seed = int(argv[2]) if len(argv) > 2 else 0
    if not under_asan() and hasattr(resource, "RLIMIT_AS"):
        cap = 8 << 30  # a huge allocation fails as MemoryError (a failure) rather than exhausting the machine
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    start = time.time()
    counts, failures = run(n, seed, failures_dir=os.environ.get("FUZZ_FAILURES", "torch_zip_failures"))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"torch_zip fuzz: {n} iterations, seed {seed}, {time.time() - start:.0f} s, peak RSS {peak_mb:.0f} MB, "
        f"outcomes {counts}, failures {len(failures)}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
