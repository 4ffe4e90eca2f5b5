"""Opcode-aware fuzzing of ember's PyTorch checkpoint reader (ember._torch_load).

    python python/tests/fuzz/torch_pickle.py N [seed]

Where fuzz/torch_zip.py mutates bytes, this mutates the pickle of each checkpoint as a list of opcodes: it
deletes, duplicates, swaps and inserts opcodes (containers, memo puts and gets, BUILD, REDUCE, SETITEM(S),
APPEND(S), persistent ids, GLOBALs of allow-listed and forbidden names), and rewrites arguments (integers with
extreme values, strings with storage keys, dtype names and attribute names, memo indices), then re-packs the
checkpoint into a valid zip so that every input reaches the unpickler. Each input must load or raise
RuntimeError / pickle.UnpicklingError starting with "ember.load", within a time limit; a loaded result is
walked and its tensors summed. Every 50 inputs, and at the end, a genuine checkpoint must still load with its
true values and no process-wide state the loader could reach may have changed (Note [fresh immutable globals]
in ember/_torch_load.py). Prints the counts; exits 1 on a failure (inputs written to ./torch_pickle_failures/).
"""

import collections
import copyreg
import importlib.util
import io
import os
import pickle
import pickletools
import random
import signal
import struct
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if importlib.util.find_spec("ember") is None:  # a source checkout without an installed ember (see torch_zip.py)
    sys.path.append(os.path.join(os.path.dirname(os.path.dirname(HERE)), ""))

import numpy as np  # noqa: E402
from torch_ckpt_util import FIXTURES, LOADABLE, make_zip, zip_members  # noqa: E402

import ember  # noqa: E402
from ember import _torch_load  # noqa: E402

TIME_LIMIT_S = 10.0
BIG_INTS = [0, 1, -1, 2, 7, 63, 64, 65, 255, 256, 2**31 - 1, 2**31, 2**32, 2**62, 2**63 - 1, 2**63, -(2**63), 10**20]
STRINGS = [
    "0",
    "1",
    "2",
    "storage",
    "cpu",
    "cuda:0",
    "",
    "../x",
    "_metadata",
    "keys",
    "copy",
    "dtype_name",
    "np_dtype",
    "itemsize",
    "__class__",
    "__dict__",
    "__defaults__",
    "__setstate__",
    "neg",
    "conj",
    "int32",
]
GLOBALS = [
    "collections OrderedDict",
    "torch FloatStorage",
    "torch IntStorage",
    "torch HalfStorage",
    "torch BFloat16Storage",
    "torch._utils _rebuild_tensor_v2",
    "torch._utils _rebuild_parameter",
    "torch Size",
    "torch device",
    "builtins set",
    "builtins bytearray",
    "torch float32",
    "builtins getattr",
    "os system",
    "builtins eval",
    "copyreg _reconstructor",
    "builtins object",
    "torch.nn Module",
]
_INT_OPS = {"BININT1", "BININT2", "BININT", "LONG1", "INT", "LONG"}
_STR_OPS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING", "STRING"}
_MEMO_OPS = {"BINPUT", "BINGET", "LONG_BINPUT", "LONG_BINGET", "PUT", "GET"}


class Failure(Exception):
    pass


def p_int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if -(1 << 31) <= v < (1 << 31):
        return b"J" + struct.pack("<i", v)
    n = (v.bit_length() + 8) // 8
    return b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)


def p_str(s):
    b = s.encode("utf-8", "surrogatepass")
    return b"X" + struct.pack("<I", len(b)) + b


def p_global(spec):
    module, name = spec.split()
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def tokens(pkl):
    """The pickle as a list of opcode chunks (each opcode with its argument bytes), STOP excluded."""
    ops = list(pickletools.genops(pkl))
    out = []
    for k, (op, arg, pos) in enumerate(ops):
        end = ops[k + 1][2] if k + 1 < len(ops) else len(pkl)
        if op.name != "STOP":
            out.append((op.name, arg, pkl[pos:end]))
    return out


def snippet(rng):
    """One opcode (with an argument) to insert."""
    choice = rng.randrange(14)
    if choice == 0:
        return p_global(rng.choice(GLOBALS))
    if choice == 1:
        return p_int(rng.choice(BIG_INTS))
    if choice == 2:
        return p_str(rng.choice(STRINGS))
    if choice == 3:
        return b"q" + bytes([rng.randrange(8)])  # BINPUT
    if choice == 4:
        return b"h" + bytes([rng.randrange(8)])  # BINGET
    if choice == 5:  # a persistent id of a real or made-up storage
        key = rng.choice(["0", "1", "2", "9"])
        stype = rng.choice(["FloatStorage", "IntStorage", "LongStorage", "ByteStorage"])
        return (
            b"("
            + p_str("storage")
            + p_global(f"torch {stype}")
            + p_str(key)
            + p_str("cpu")
            + p_int(rng.choice([0, 1, 4, 6, 2**40]))
            + b"tQ"
        )
    if choice == 6:  # an attribute dict, for BUILD
        return b"}" + p_str(rng.choice(STRINGS)) + p_int(rng.choice(BIG_INTS)) + b"s"
    return rng.choice(
        [
            b"(",
            b"0",
            b"2",
            b"1",
            b"b",
            b"R",
            b"s",
            b"u",
            b"a",
            b"e",
            b"t",
            b")",
            b"}",
            b"]",
            b"N",
            b"\x85",
            b"\x86",
            b"\x87",
            b"\x88",
            b"\x8f",
            b"\x90",
            b"\x91",
            b"\x81",
            b"\x94",
            b"l",
            b"d",
        ]
    )


def mutate_pickle(rng, pkl):
    toks = tokens(pkl)
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        if not toks:
            break
        i = rng.randrange(len(toks))
        name, arg, chunk = toks[i]
        kind = rng.randrange(8)
        if kind == 0:
            del toks[i]
        elif kind == 1:
            toks.insert(i, toks[i])
        elif kind == 2 and i + 1 < len(toks):
            toks[i], toks[i + 1] = toks[i + 1], toks[i]
        elif kind == 3:
            toks.insert(i, ("?", None, snippet(rng)))
        elif kind == 4:  # an integer argument
            spots = [k for k, t in enumerate(toks) if t[0] in _INT_OPS]
            if spots:
                k = rng.choice(spots)
                toks[k] = ("BININT", None, p_int(rng.choice(BIG_INTS + [rng.randrange(-300, 300)])))
        elif kind == 5:  # a string argument
            spots = [k for k, t in enumerate(toks) if t[0] in _STR_OPS]
            if spots:
                toks[rng.choice(spots)] = ("BINUNICODE", None, p_str(rng.choice(STRINGS)))
        elif kind == 6:  # a memo index
            spots = [k for k, t in enumerate(toks) if t[0] in _MEMO_OPS]
            if spots:
                k = rng.choice(spots)
                get = "GET" in toks[k][0]
                toks[k] = ("M", None, (b"h" if get else b"q") + bytes([rng.randrange(12)]))
        else:  # a global
            spots = [k for k, t in enumerate(toks) if t[0] in ("GLOBAL", "STACK_GLOBAL")]
            if spots:
                toks[rng.choice(spots)] = ("GLOBAL", None, p_global(rng.choice(GLOBALS)))
    return b"".join(t[2] for t in toks) + b"."


def mutate(rng, data):
    members = zip_members(data)
    for k, (name, body) in enumerate(members):
        if name.endswith("/data.pkl"):
            try:
                members[k] = (name, mutate_pickle(rng, body))
            except Exception:  # (a seed that pickletools can't walk: none of the fixtures)
                pass
    return make_zip(members)


# ---- checks


def touch(obj):
    """Walks a loaded object and sums every tensor in it (every element of every view is read)."""
    stack, seen, n = [obj], set(), 0
    while stack and n < 100000:
        o = stack.pop()
        n += 1
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, ember.Tensor):
            t = o.detach()
            if 0 < t.numel() <= 1 << 20:
                t.double().sum().item() if t.dtype != ember.bool else t.any().item()
        elif isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
            stack.extend(getattr(o, "__dict__", {}).values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)


def process_state():
    """What a pickle could change for later loads: the loader module's objects, dtypes, copyreg's registries."""
    state = {}
    for name, v in vars(_torch_load).items():
        for attr in ("__defaults__", "__kwdefaults__", "__dict__"):
            if callable(v) and hasattr(v, attr):
                state[f"{name}.{attr}"] = repr(getattr(v, attr))
        if isinstance(v, (dict, list, tuple, int, str)):
            state[name] = repr(v)
    for name in _torch_load._DTYPE_NAMES:
        state[name] = repr(getattr(getattr(ember, name, None), "__dict__", None))
    for attr in ("_extension_registry", "_inverted_registry", "_extension_cache", "dispatch_table"):
        state[attr] = repr(getattr(copyreg, attr))
    state["OrderedDict"] = repr(sorted(collections.OrderedDict.__dict__))
    return state


_GENUINE = np.arange(-3, 3, dtype="<f4") * np.float32(1.25)


def genuine_ok():
    from torch_ckpt_util import checkpoint, p_tensor

    data = checkpoint(p_tensor([6], [1], 0, 6), {"0": _GENUINE.tobytes()})
    t = _torch_load.load_torch_file(io.BytesIO(data))
    return t.dtype is ember.float32 and t.tolist() == _GENUINE.tolist()


def _alarm(signum, frame):
    raise Failure(f"took longer than {TIME_LIMIT_S} s")


def run_one(data):
    try:
        result = _torch_load.load_torch_file(io.BytesIO(data))
    except (RuntimeError, pickle.UnpicklingError) as e:
        if not str(e).startswith("ember.load"):
            raise Failure(f"{type(e).__name__} without ember.load's context: {str(e)[:200]}") from e
        return "rejected"
    touch(result)
    return "loaded"


def seeds():
    out = []
    for name in LOADABLE:
        with open(os.path.join(FIXTURES, name + ".pt"), "rb") as f:
            data = f.read()
        if data[:2] == b"PK":  # the zip fixtures (the legacy one is byte-fuzzed by torch_zip.py)
            out.append(data)
    return out


def run_fuzz(iterations, seed=0, log=None, failures_dir=None):
    """Runs `iterations` mutated checkpoints; returns the counts (loaded, rejected, failures)."""
    rng = random.Random(seed)
    corpus = seeds()
    state = process_state()
    counts = {"loaded": 0, "rejected": 0, "failures": 0}
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for it in range(iterations):
            data = mutate(rng, rng.choice(corpus))
            signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT_S)
            try:
                counts[run_one(data)] += 1
                if (it + 1) % 50 == 0 or it + 1 == iterations:
                    if not genuine_ok():
                        raise Failure("a genuine checkpoint no longer loads its true values")
                    if process_state() != state:
                        raise Failure("process-wide state changed")
            except Exception as e:  # noqa: BLE001 - anything else is what the fuzzer looks for
                counts["failures"] += 1
                if log:
                    log(f"input {it}: {type(e).__name__}: {e}\n{traceback.format_exc()[-1500:]}")
                if failures_dir:
                    os.makedirs(failures_dir, exist_ok=True)
                    with open(os.path.join(failures_dir, f"fail-{seed}-{it}.pt"), "wb") as f:
                        f.write(data)
                state = process_state()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return counts


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 10000
    seed = int(argv[2]) if len(argv) > 2 else 0
    counts = run_fuzz(n, seed, log=lambda m: print(m, file=sys.stderr), failures_dir="torch_pickle_failures")
    print(
        f"torch_pickle: {n} mutated pickles: {counts['loaded']} loaded, {counts['rejected']} rejected, "
        f"{counts['failures']} failures"
    )
    return 1 if counts["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
