"""The GPU from Python: md5_cuda on columns in GPU memory (CuPy, PyTorch),
md5_many_offsets(device=...) on host columns, each against hashlib.

Without a GPU (CI), the GPU tests are skipped with the reason shown in
pytest's summary (-rs); what needs no GPU (the fallback warning, argument
errors) runs everywhere."""

import hashlib
import random
import warnings

import numpy as np
import pytest

import linerate_hash as lh


def _gpu_reason():
    """None if a GPU is usable, else why not (from linerate itself)."""
    values = np.frombuffer(b"abc", np.uint8)
    offsets = np.array([0, 3], np.int64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lh.md5_many_offsets(values, offsets, device="cuda")
    for w in caught:
        if "GPU not used" in str(w.message):
            return str(w.message)
    return None


NO_GPU = _gpu_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}")


def _column(rng, lengths, base=0):
    offsets = np.zeros(len(lengths) + 1, np.int64)
    offsets[0] = base
    offsets[1:] = base + np.cumsum(lengths)
    values = np.frombuffer(rng.randbytes(int(offsets[-1])), np.uint8)
    want = b"".join(hashlib.md5(values[offsets[i]:offsets[i + 1]].tobytes()).digest() for i in range(len(lengths)))
    return values, offsets, want


def test_cuda_without_a_gpu_warns_and_still_hashes():
    if NO_GPU is None:
        pytest.skip("this machine has a GPU: the fallback is not taken")
    rng = random.Random(1)
    values, offsets, want = _column(rng, [0, 1, 63, 64, 65, 1000])
    with pytest.warns(RuntimeWarning, match="GPU not used"):
        got = lh.md5_many_offsets(values, offsets, device="cuda")
    assert got == want
    # auto and cpu say nothing and hash on the CPU
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lh.md5_many_offsets(values, offsets, device="auto") == want
        assert lh.md5_many_offsets(values, offsets, device="cpu") == want


def test_bad_device_names_and_non_device_arrays_are_errors():
    values = np.frombuffer(b"abc", np.uint8)
    offsets = np.array([0, 3], np.int64)
    with pytest.raises(ValueError, match="invalid device 'tpu'"):
        lh.md5_many_offsets(values, offsets, device="tpu")
    with pytest.raises(TypeError, match="__cuda_array_interface__"):
        lh.md5_cuda(values, offsets)


@needs_gpu
def test_host_column_on_the_gpu_matches_hashlib():
    rng = random.Random(2)
    lengths = list(range(301)) + [rng.randrange(1 << 20) for _ in range(30)]
    for base in (0, 1, 5):
        values, offsets, want = _column(rng, lengths, base)
        assert lh.md5_many_offsets(values, offsets, device="cuda") == want
        hexed = lh.md5_many_offsets(values, offsets, device="cuda", hex=True)
        assert hexed == want.hex().encode()
        out = np.zeros((len(lengths), 16), np.uint8)
        assert lh.md5_many_offsets(values, offsets.astype(np.int32), out, device="cuda") is None
        assert out.tobytes() == want


@needs_gpu
@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_device_columns_are_hashed_in_place(library):
    rng = random.Random(3)
    lengths = list(range(301)) + [rng.randrange(70000) for _ in range(50)]
    values, offsets, want = _column(rng, lengths, 3)
    if library == "cupy":
        cp = pytest.importorskip("cupy")
        dv, d64, d32 = cp.asarray(values), cp.asarray(offsets), cp.asarray(offsets.astype(np.int32))
    else:
        torch = pytest.importorskip("torch")
        dv = torch.from_numpy(values.copy()).cuda()
        d64 = torch.from_numpy(offsets).cuda()
        d32 = torch.from_numpy(offsets.astype(np.int32)).cuda()
    assert lh.md5_cuda(dv, d64) == want
    assert lh.md5_cuda(dv, d32) == want
    assert lh.md5_cuda(dv, d64, hex=True) == want.hex().encode()
    # an odd start inside the device buffer (a slice of the values)
    assert lh.md5_cuda(dv[1:], d64 - 1) == want
    # empty and single-row batches
    assert lh.md5_cuda(dv, d64[:1]) == b""
    assert lh.md5_cuda(dv, d64[:2]) == want[:16]


@needs_gpu
def test_bad_device_offsets_name_the_row():
    cp = pytest.importorskip("cupy")
    dv = cp.asarray(np.frombuffer(b"0123456789", np.uint8))
    with pytest.raises(ValueError, match="row 1"):
        lh.md5_cuda(dv, cp.asarray(np.array([0, 5, 3, 9], np.int64)))
    with pytest.raises(ValueError, match="row 2"):
        lh.md5_cuda(dv, cp.asarray(np.array([0, 5, 9, 11], np.int64)))
    with pytest.raises(ValueError, match="row 0"):
        lh.md5_cuda(dv, cp.asarray(np.array([-1, 5], np.int32)))


def test_hash_files_on_the_device_matches_hashlib(tmp_path):
    rng = random.Random(4)
    paths = []
    for i, n in enumerate([0, 1, 63, 64, 65, 5000, 1 << 20, (3 << 20) + 17]):
        p = tmp_path / f"f{i}"
        p.write_bytes(rng.randbytes(n))
        paths.append(str(p))
    paths.append(str(tmp_path / "missing"))
    want = [hashlib.md5(open(p, "rb").read()).digest() for p in paths[:-1]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = lh.hash_files(paths, device="cuda", errors="return")
    assert got[:-1] == want
    assert isinstance(got[-1], FileNotFoundError)
    gpu_warnings = [w for w in caught if "GPU not used" in str(w.message)]
    # Without a GPU the CPU does it and says why; with one, nothing is said.
    assert bool(gpu_warnings) == (NO_GPU is not None)
