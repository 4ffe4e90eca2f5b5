"""Helpers shared by test_torch_load.py, test_torch_load_fuzz.py and fuzz/torch_zip.py: the fixture folder,
re-packing a checkpoint zip with changed members, and hand-built pickles in torch.save's layout."""

import io
import os
import struct
import zipfile

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "torch")
LOADABLE = ["tensor", "state_dict", "containers", "views", "dtypes", "parameters", "legacy", "optimizer"]


def fixture(name):
    return os.path.join(FIXTURES, name + ".pt")


def read_fixture(name):
    with open(fixture(name), "rb") as f:
        return f.read()


def zip_members(data):
    """[(name, bytes)] of a zip checkpoint, in order."""
    z = zipfile.ZipFile(io.BytesIO(data))
    return [(i.filename, z.read(i)) for i in z.infolist()]


def make_zip(members, compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def repack(data, change):
    """The zip checkpoint `data` with each member (name, bytes) replaced by change(name, bytes), which
    returns new bytes, or None to drop the member."""
    out = []
    for name, body in zip_members(data):
        new = change(name, body)
        if new is not None:
            out.append((name, new))
    return make_zip(out)


# -- hand-built pickles (protocol 2, as torch.save writes them) ------------------------------------------


def p_int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if -(1 << 31) <= v < (1 << 31):
        return b"J" + struct.pack("<i", v)
    n = (v.bit_length() + 8) // 8
    return b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)


def p_str(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def p_tuple(items):
    return b"(" + b"".join(items) + b"t"


def p_global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def p_tensor(size, stride, offset, numel, storage="FloatStorage", key="0", location="cpu", requires_grad=False):
    pid = p_tuple([p_str("storage"), p_global("torch", storage), p_str(key), p_str(location), p_int(numel)])
    args = p_tuple(
        [
            pid + b"Q",
            p_int(offset),
            p_tuple([p_int(s) for s in size]),
            p_tuple([p_int(s) for s in stride]),
            b"\x88" if requires_grad else b"\x89",
            p_global("collections", "OrderedDict") + b")R",
        ]
    )
    return p_global("torch._utils", "_rebuild_tensor_v2") + args + b"R"


def p_wrap(body):
    return b"\x80\x02" + body + b"."


def checkpoint(pickle_body, storages, top="archive"):
    """A zip checkpoint whose data.pkl is p_wrap(pickle_body) and whose storages are {key: bytes}."""
    members = [(f"{top}/data.pkl", p_wrap(pickle_body))]
    members += [(f"{top}/data/{k}", v) for k, v in storages.items()]
    members.append((f"{top}/version", b"3\n"))
    return make_zip(members)
