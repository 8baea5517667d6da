"""linerate's CUDA kernels (crates/linerate/src/gpu/kernels.cu) compiled
for the CPU with a shim for CUDA's built-ins, one thread at a time, and
checked against hashlib: their padding, alignment, tail and offset logic is
tested on every machine, GPU or not. (On a GPU the Rust tests in
crates/linerate/tests/it/gpu.rs run the real thing.)"""

import ctypes
import hashlib
import mmap
import os
import random
import shutil
import struct
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPU = os.path.join(ROOT, "crates", "linerate", "src", "gpu")
P = ctypes.c_void_p
U64 = ctypes.c_ulonglong
INIT = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    out = tmp_path_factory.mktemp("emu") / "emu.so"
    subprocess.run(
        [cxx, "-O1", "-std=c++17", "-shared", "-fPIC", '-DKERNELS="../kernels.cu"',
         "-o", str(out), os.path.join(GPU, "host_emulation", "emu.cpp")],
        check=True,
    )
    return ctypes.CDLL(str(out))


def ptr(a):
    return P(a.ctypes.data)


def rows64(lib, data, offsets):
    n = len(offsets) - 1
    dig = np.full(4 * n, 0xA5A5A5A5, np.uint32)  # poisoned: every row must be written
    lib.run_rows64(ptr(data), ptr(offsets), U64(n), ptr(dig))
    return dig.tobytes()


def want(data, offsets):
    return b"".join(hashlib.md5(data[int(a):int(b)].tobytes()).digest() for a, b in zip(offsets, offsets[1:]))


def test_rows_of_every_length_and_alignment(lib):
    rng = random.Random(1)
    for base in range(8):
        lens = list(range(301)) + [rng.randrange(5000) for _ in range(30)]
        offsets = np.zeros(len(lens) + 1, np.uint64)
        offsets[0] = base
        offsets[1:] = base + np.cumsum(lens)
        data = np.frombuffer(rng.randbytes(int(offsets[-1])), np.uint8).copy()
        assert rows64(lib, data, offsets) == want(data, offsets), base
        o32 = offsets.astype(np.int32)
        dig = np.zeros(4 * len(lens), np.uint32)
        lib.run_rows32(ptr(data), ptr(o32), U64(len(lens)), ptr(dig))
        assert dig.tobytes() == want(data, offsets), base


def test_a_row_ending_at_a_guard_page_reads_nothing_past_it(lib):
    # The last row of a buffer may end anywhere: the kernel must not load a
    # word past its last byte's (a fault here, a fault on the GPU).
    page = mmap.PAGESIZE
    m = mmap.mmap(-1, 2 * page)
    buf = (ctypes.c_char * (2 * page)).from_buffer(m)
    addr = ctypes.addressof(buf)
    libc = ctypes.CDLL(None)
    data = np.frombuffer(m, np.uint8, count=page)
    data[:] = np.frombuffer(random.Random(2).randbytes(page), np.uint8)
    assert libc.mprotect(P(addr + page), page, 0) == 0
    try:
        for length in range(200):
            offsets = np.array([page - length, page], np.uint64)
            dig = np.zeros(4, np.uint32)
            lib.run_rows64(P(addr), ptr(offsets), U64(1), ptr(dig))
            assert dig.tobytes() == hashlib.md5(bytes(data[page - length:])).digest(), length
    finally:
        libc.mprotect(P(addr + page), page, 3)
        del data, buf


K = [int(abs(__import__("math").sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)]
S = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4


def compress(state, block):
    """RFC 1321's compression, written from the RFC, as the reference."""
    a, b, c, d = state
    m = struct.unpack("<16I", block)
    for i in range(64):
        if i < 16:
            f, g = (b & c) | (~b & d), i
        elif i < 32:
            f, g = (d & b) | (~d & c), (5 * i + 1) % 16
        elif i < 48:
            f, g = b ^ c ^ d, (3 * i + 5) % 16
        else:
            f, g = c ^ (b | (~d & 0xFFFFFFFF)), (7 * i) % 16
        f = (f + a + K[i] + m[g]) & 0xFFFFFFFF
        a, d, c = d, c, b
        b = (b + ((f << S[i]) | (f >> (32 - S[i])))) & 0xFFFFFFFF
    return [(x + y) & 0xFFFFFFFF for x, y in zip(state, (a, b, c, d))]


def test_update_strided_streams_fresh_and_continued(lib):
    rng = random.Random(3)
    # S3 parts (stride 64) from odd starts, and MD5-P/K chains (stride K*64)
    for stride, k, nblocks, base in [(64, 7, 40, 5), (64 * 4, 4, 10, 0), (64 * 8, 8, 3, 3)]:
        span = (k * nblocks + 1) * 64 * (stride // 64 if stride > 64 else 1)
        data = np.frombuffer(rng.randbytes(span + base + 64 * 64), np.uint8).copy()
        starts = np.array([base + (64 * s if stride > 64 else s * nblocks * 64) for s in range(k)], np.uint64)
        blocks = np.array([nblocks - (s % 3 if stride == 64 else 0) for s in range(k)], np.uint64)
        prior = [[rng.getrandbits(32) for _ in range(4)] for _ in range(k)]
        fresh = np.array([s % 2 for s in range(k)], np.uint8)
        st = np.array([w for p in prior for w in p], np.uint32)
        lib.run_update(ptr(data), ptr(starts), U64(stride), ptr(blocks), ptr(fresh), U64(k), ptr(st))
        for s in range(k):
            ref = list(INIT) if fresh[s] else prior[s]
            for j in range(int(blocks[s])):
                o = int(starts[s]) + j * stride
                ref = compress(ref, data[o:o + 64].tobytes())
            assert list(st[4 * s:4 * s + 4]) == ref, (stride, s)


def test_offset_checks_name_the_first_bad_row(lib):
    def first_bad(offsets, length):
        o = np.array(offsets, np.uint64)
        bad = np.array([2**64 - 1], np.uint64)
        lib.run_check64(ptr(o), U64(len(offsets) - 1), U64(length), ptr(bad))
        return None if bad[0] == 2**64 - 1 else int(bad[0])

    assert first_bad([0, 5, 9], 9) is None
    assert first_bad([0, 5, 3, 9], 9) == 1
    assert first_bad([0, 5, 10], 9) == 1
    assert first_bad([2**63, 2**63 + 1], 2**64 - 1) == 0  # negative as int64
