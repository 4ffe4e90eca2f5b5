"""A small reader for MATLAB level-5 .mat files (the format of SVHN's and Flowers102's files): numeric matrices,
zlib-compressed or not. Everything else (cells, structs, sparse, char arrays) is skipped. The file is treated as
hostile: every size is checked against the bytes there are, and a bad file raises RuntimeError naming it."""

import math
import struct
import zlib

import numpy as np

__all__ = ["loadmat"]

# data types (miINT8 ...) -> NumPy dtype
_MI = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8", 13: "u8"}
# array classes (mxDOUBLE_CLASS ...) -> NumPy dtype
_MX = {6: "f8", 7: "f4", 8: "i1", 9: "u1", 10: "i2", 11: "u2", 12: "i4", 13: "u4", 14: "i8", 15: "u8"}
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_MAX_INFLATE = 1 << 34  # 16 GiB: a bound on what one compressed element may inflate to


class _Bad(Exception):
    pass


def _elements(buf, endian):
    """(type, payload) of each data element in buf."""
    pos, n = 0, len(buf)
    while pos < n:
        if n - pos < 8:
            raise _Bad("a data element's tag is cut off at byte %d" % pos)
        first, second = struct.unpack_from(endian + "II", buf, pos)
        if first >> 16:  # the small element format: 2-byte size, 2-byte type, up to 4 bytes of data
            size, typ = first >> 16, first & 0xFFFF
            if size > 4:
                raise _Bad("a small data element claims %d bytes" % size)
            yield typ, buf[pos + 4 : pos + 4 + size]
            pos += 8
            continue
        typ, size = first, second
        start = pos + 8
        if size > n - start:
            raise _Bad("a data element of %d bytes at byte %d runs past the end (%d bytes)" % (size, pos, n))
        yield typ, buf[start : start + size]
        pos = start + size
        if typ != _MI_COMPRESSED:
            pos += (-size) % 8  # padded to 8 bytes


def _inflate(data):
    # Deflate expands at most ~1032:1: more output than that is not what a well-formed element holds.
    limit = min(_MAX_INFLATE, 1100 * len(data) + 4096)
    d = zlib.decompressobj()
    try:
        out = d.decompress(data, limit)
    except zlib.error as e:
        raise _Bad("a compressed element is corrupt (%s)" % e) from None
    if d.unconsumed_tail:
        raise _Bad("a compressed element inflates to more than %d bytes" % limit)
    return out


def _numeric(typ, payload, endian):
    if typ not in _MI:
        raise _Bad("unsupported data type %d" % typ)
    dt = np.dtype(_MI[typ]).newbyteorder(endian)
    if len(payload) % dt.itemsize:
        raise _Bad("%d bytes is not a whole number of %s values" % (len(payload), dt))
    return np.frombuffer(payload, dtype=dt)


def _matrix(payload, endian):
    """(name, array) of a miMATRIX element, or None for a kind this reader skips."""
    parts = list(_elements(payload, endian))
    if len(parts) < 3:
        raise _Bad("a matrix element has %d parts (flags, dimensions, name at least)" % len(parts))
    flags = _numeric(*parts[0], endian)
    if flags.size < 1:
        raise _Bad("a matrix element has no array flags")
    cls, complex_ = int(flags[0]) & 0xFF, bool(int(flags[0]) & 0x800)
    dims = [int(v) for v in _numeric(*parts[1], endian)]
    name = bytes(parts[2][1]).decode("latin-1")
    if cls not in _MX:
        return name, None
    if any(d < 0 for d in dims):
        raise _Bad("matrix %r has negative dimensions %s" % (name, dims))
    count = math.prod(dims) if dims else 0  # Python ints: no overflow
    if len(parts) < 4:
        raise _Bad("matrix %r has no data" % name)
    real = _numeric(*parts[3], endian)
    if real.size != count:
        raise _Bad("matrix %r of shape %s holds %d values, not %d" % (name, dims, real.size, count))
    out = real.astype(_MX[cls])
    if complex_:
        if len(parts) < 5:
            raise _Bad("complex matrix %r has no imaginary part" % name)
        imag = _numeric(*parts[4], endian)
        if imag.size != count:
            raise _Bad("matrix %r: its imaginary part holds %d values, not %d" % (name, imag.size, count))
        out = out + 1j * imag
    return name, out.reshape(dims, order="F")


def loadmat(path, squeeze_me=False):
    """{name: array} of the numeric matrices in a level-5 .mat file (scipy.io.loadmat's arrays: MATLAB's shape,
    at least 2-d; squeeze_me drops the size-1 dims)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        if len(data) < 128:
            raise _Bad("the file is %d bytes, shorter than the 128-byte header" % len(data))
        if data[126:128] == b"IM":
            endian = "<"
        elif data[126:128] == b"MI":
            endian = ">"
        else:
            raise _Bad("no level-5 MAT header (endian indicator %r)" % data[126:128])
        out = {}
        body = memoryview(data)[128:]
        for typ, payload in _elements(body, endian):
            if typ == _MI_COMPRESSED:
                inner = list(_elements(_inflate(payload), endian))
            else:
                inner = [(typ, payload)]
            for t, p in inner:
                if t != _MI_MATRIX:
                    continue
                name, arr = _matrix(p, endian)
                if arr is not None:
                    out[name] = np.squeeze(arr) if squeeze_me else arr
        return out
    except _Bad as e:
        raise RuntimeError("cannot read the MAT file %s: %s" % (path, e)) from None
