"""Complex dtypes (issue 23): complex64/complex128, Python complex numbers, promotion, printing, NumPy, DLPack and
checkpoints. Comparisons with PyTorch run the reference PyTorch (/opt/torch2/py) in a subprocess and are skipped
without it; the rest checks against NumPy and closed forms."""

import io
import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import ember

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")


def run_torch(code):
    """Runs `code` under the reference PyTorch and returns what it printed, parsed as JSON."""
    out = subprocess.run([TORCH_PY, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


# ---- dtypes ---------------------------------------------------------------------------------------------------------


def test_dtype_objects():
    assert ember.cfloat is ember.complex64 and ember.cdouble is ember.complex128
    assert repr(ember.complex64) == "ember.complex64"
    assert ember.complex64.is_complex and ember.complex128.is_complex and not ember.float32.is_complex
    assert not ember.complex64.is_floating_point and ember.complex64.is_signed
    assert ember.complex64.itemsize == 8 and ember.complex128.itemsize == 16
    assert ember.float32.to_complex() is ember.complex64 and ember.float64.to_complex() is ember.complex128
    assert ember.complex128.to_real() is ember.float64 and ember.complex64.to_real() is ember.float32
    assert ember.complex64.to_complex() is ember.complex64 and ember.int32.to_real() is ember.int32
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Int"):
        ember.int32.to_complex()


def test_tensor_from_python_complex():
    z = ember.tensor([1 + 2j, -3.5j, 4])
    assert z.dtype == ember.complex64 and z.is_complex() and ember.is_complex(z) and not z.is_floating_point()
    assert z.tolist() == [1 + 2j, -3.5j, 4 + 0j]
    assert ember.tensor(2j).item() == 2j and isinstance(ember.tensor(2j).item(), complex)
    assert ember.tensor([1j], dtype=ember.complex128).dtype == ember.complex128
    assert ember.tensor([np.complex64(1 - 1j), np.complex128(2j)]).tolist() == [1 - 1j, 2j]
    assert ember.full((2,), 1j).dtype == ember.complex64 and ember.full((2,), 1j).tolist() == [1j, 1j]
    assert ember.zeros(2, dtype=ember.cdouble).tolist() == [0j, 0j]
    assert ember.scalar_tensor(1 + 1j).dtype == ember.complex64
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.tensor([1j]).dtype == ember.complex128  # the default complex dtype follows the float one
        assert ember.full((1,), 1j).dtype == ember.complex128
    finally:
        ember.set_default_dtype(ember.float32)


def test_casts_and_conversions():
    z = ember.tensor([1.5 + 2j, -3 - 0.25j])
    assert z.to(ember.float64).tolist() == [1.5, -3.0]  # the real part, as PyTorch's cast
    assert z.to(ember.bool).tolist() == [True, True] and ember.tensor([0j]).bool().tolist() == [False]
    assert z.cdouble().dtype == ember.complex128 and z.cdouble().tolist() == z.tolist()
    assert ember.tensor([1, 2]).cfloat().tolist() == [1 + 0j, 2 + 0j]
    assert ember.tensor([0.5], dtype=ember.float16).to(ember.complex64).tolist() == [0.5 + 0j]
    assert complex(ember.tensor(3 - 1j)) == 3 - 1j
    with pytest.raises(TypeError, match="must be real number, not complex"):
        ember.tensor([1 + 2j], dtype=ember.float32)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        ember.zeros(2).fill_(1j)
    assert ember.zeros(2).fill_(2 + 0j).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype"):
        ember.tensor([1]).requires_grad_()
    assert ember.tensor([1j]).requires_grad_().requires_grad


# ---- promotion ------------------------------------------------------------------------------------------------------

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
DTYPES += ["complex64", "complex128", "complex32"]
# operands: (kind, dtype name): "t" a 1-d tensor, "z" a 0-d tensor; and Python numbers
NUMBERS = ["True", "2", "2.5", "1j"]


@needs_torch
def test_promotion_matches_pytorch():
    want = run_torch(
        f"""
        import json, torch
        D = {DTYPES!r}
        N = {NUMBERS!r}
        r = {{}}
        for a in D:
            for b in D:
                r["p " + a + " " + b] = str(torch.promote_types(getattr(torch, a), getattr(torch, b)))
                r["tz " + a + " " + b] = str(torch.result_type(torch.ones(2, dtype=getattr(torch, a)),
                                                               torch.ones((), dtype=getattr(torch, b))))
            for n in N:
                r["tn " + a + " " + n] = str(torch.result_type(torch.ones(2, dtype=getattr(torch, a)), eval(n)))
        for d in ("float32", "float64"):
            torch.set_default_dtype(getattr(torch, d))
            r["default " + d] = str(torch.tensor([1j]).dtype) + " " + str((torch.ones(2, dtype=torch.int32) * 1j).dtype)
        print(json.dumps(r))
        """
    )
    got = {}
    for a in DTYPES:
        for b in DTYPES:
            got["p " + a + " " + b] = str(ember.promote_types(getattr(ember, a), getattr(ember, b)))
            got["tz " + a + " " + b] = str(
                ember.result_type(ember.ones(2, dtype=getattr(ember, a)), ember.ones((), dtype=getattr(ember, b)))
            )
        for n in NUMBERS:
            got["tn " + a + " " + n] = str(ember.result_type(ember.ones(2, dtype=getattr(ember, a)), eval(n)))
    try:
        for d in ("float32", "float64"):
            ember.set_default_dtype(getattr(ember, d))
            got["default " + d] = (
                str(ember.tensor([1j]).dtype) + " " + str((ember.ones(2, dtype=ember.int32) * 1j).dtype)
            )
    finally:
        ember.set_default_dtype(ember.float32)
    # ember has no bcomplex32: where PyTorch gives it (bfloat16 with a complex number), ember gives complex64
    want = {k: v.replace("torch.", "ember.") for k, v in want.items()}
    diff = {k: (got[k], want[k]) for k in want if got[k] != want[k] and "bcomplex32" not in want[k]}
    assert not diff


def test_promotion_closed_forms():
    f32, f64 = ember.ones(2), ember.ones(2, dtype=ember.float64)
    c128 = ember.ones(2, dtype=ember.complex128)
    assert (f32 + c128).dtype == ember.complex128
    assert (ember.tensor([1, 2]) * 1j).dtype == ember.complex64
    assert (f64 * 1j).dtype == ember.complex128 and (f32 * 1j).dtype == ember.complex64
    assert (f32 + ember.tensor(1j, dtype=ember.complex128)).dtype == ember.complex64  # a 0-d tensor keeps the category
    assert ember.promote_types(ember.complex64, ember.float64) == ember.complex128


# ---- printing -------------------------------------------------------------------------------------------------------

PRINT_CASES = [
    "[1 + 2j, -1j]",
    "[1.5 - 0.25j, 1e10 + 1j]",
    "[0j]",
    "[complex(float('nan'), 1), complex(float('inf'), -float('inf'))]",
    "[[1 + 1j, 2 - 2.5j], [-3 + 0j, 1e-5j]]",
    "[1e-9 + 1e9j, 3 + 4j]",
    "3 - 4j",
    "-0.0 - 0.0j",
    "[0.1 + 0.2j, 0.3 - 0.4j, 100 + 0.001j]",
    "[[[1 + 2j]]]",
    "[complex(i, -i / 3) for i in range(1200)]",
    "[complex(i * 0.5, 2) for i in range(30)]",
]


@needs_torch
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_printing_matches_pytorch(dtype):
    want = run_torch(
        f"""
        import json, torch
        print(json.dumps([repr(torch.tensor(eval(c), dtype=torch.{dtype})) for c in {PRINT_CASES!r}]
                         + [repr(torch.zeros(0, 2, dtype=torch.{dtype})),
                            repr(torch.ones(2, dtype=torch.{dtype}, requires_grad=True))]))
        """
    )
    got = [repr(ember.tensor(eval(c), dtype=getattr(ember, dtype))) for c in PRINT_CASES]
    got += [
        repr(ember.zeros(0, 2, dtype=getattr(ember, dtype))),
        repr(ember.ones(2, dtype=getattr(ember, dtype)).requires_grad_()),
    ]
    assert got == [w.replace("torch.", "ember.") for w in want]


def test_printing_closed_form():
    assert repr(ember.tensor([1 + 2j, 0 - 1j])) == "tensor([1.+2.j, 0.-1.j])"
    assert repr(ember.tensor([1 + 2j], dtype=ember.complex128)) == "tensor([1.+2.j], dtype=ember.complex128)"
    assert repr(ember.tensor(0.5 - 0.25j)) == "tensor(0.5000-0.2500j)"


# ---- NumPy, DLPack, checkpoints -------------------------------------------------------------------------------------


@pytest.mark.parametrize("np_dtype, dtype", [(np.complex64, ember.complex64), (np.complex128, ember.complex128)])
def test_numpy_zero_copy_both_ways(np_dtype, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np_dtype)
    t = ember.from_numpy(a)
    assert t.dtype == dtype and t.tolist() == a.tolist()
    a[0, 0] = 7 + 7j  # shares memory
    assert t[0, 0].item() == 7 + 7j
    b = t.numpy()
    assert b.dtype == np_dtype and np.shares_memory(a, b)
    t[1, 1] = -1j
    assert b[1, 1] == -1j
    np.testing.assert_array_equal(ember.tensor(a[:, ::2]).numpy(), a[:, ::2])  # strided copy
    tt = ember.from_numpy(a.T)  # a non-contiguous view
    assert tt.stride() == (1, 4) and tt.tolist() == a.T.tolist()
    np.testing.assert_array_equal(ember.view_as_real(t).numpy(), a.view(np_dtype(0).real.dtype).reshape(3, 4, 2))


def test_dlpack_roundtrip():
    z = ember.tensor([[1 + 2j, 3 - 4j]], dtype=ember.complex128)
    back = ember.from_dlpack(z)
    assert back.dtype == ember.complex128 and back.tolist() == z.tolist() and back.data_ptr() == z.data_ptr()
    a = np.from_dlpack(z)
    assert a.dtype == np.complex128 and a.tolist() == z.tolist()
    assert ember.from_dlpack(np.array([1j], dtype=np.complex64)).dtype == ember.complex64


def test_save_load_roundtrip_and_storage_names():
    import zipfile

    z = ember.tensor([[1 + 2j, -3j], [0.5, 4 - 1j]], dtype=ember.complex128)
    sd = {"a": z, "b": z.to(ember.complex64).t(), "c": ember.tensor([1j]).real}
    buf = io.BytesIO()
    ember.save(sd, buf)
    back = ember.load(io.BytesIO(buf.getvalue()))
    for k in sd:
        assert back[k].dtype == sd[k].dtype and back[k].tolist() == sd[k].tolist()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        pkl = next(zf.read(n) for n in zf.namelist() if n.endswith("data.pkl"))
    assert b"ComplexDoubleStorage" in pkl and b"ComplexFloatStorage" in pkl


@needs_torch
def test_checkpoints_with_pytorch(tmp_path):
    z = ember.tensor([[1 + 2j, -3j]], dtype=ember.complex128)
    ember.save({"z": z, "w": z.to(ember.complex64)}, tmp_path / "e.pt")
    got = run_torch(
        f"""
        import json, torch
        d = torch.load({str(tmp_path / "e.pt")!r})
        torch.save({{"x": torch.tensor([0.5 - 1j, 2j], dtype=torch.complex64)}}, {str(tmp_path / "t.pt")!r})
        print(json.dumps([str(d["z"].dtype), str(d["w"].dtype), [[c.real, c.imag] for c in d["z"].flatten().tolist()]]))
        """
    )
    assert got == ["torch.complex128", "torch.complex64", [[1.0, 2.0], [0.0, -3.0]]]
    x = ember.load(tmp_path / "t.pt")["x"]
    assert x.dtype == ember.complex64 and x.tolist() == [0.5 - 1j, 2j]


def test_safetensors_c64(tmp_path):
    from ember import safetensors as st

    z = ember.tensor([[1 + 2j, -3j]], dtype=ember.complex64)
    path = str(tmp_path / "z.safetensors")
    st.save_file({"z": z}, path)
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    assert header["z"]["dtype"] == "C64"
    back = st.load_file(path)["z"]
    assert back.dtype == ember.complex64 and back.tolist() == z.tolist()
    with pytest.raises(TypeError, match="complex128"):
        st.save_file({"z": z.cdouble()}, path)
