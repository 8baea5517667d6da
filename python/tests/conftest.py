"""Shared helpers: the spec's MD5-P/K reference, random data, peers."""

import hashlib
import os
import random
import subprocess
import sys
import textwrap

import pytest


def md5p_reference(data: bytes, k: int) -> bytes:
    """MD5-P/K as the spec's normative Python reference computes it
    (docs/md5p.md), on hashlib."""
    chains = [hashlib.md5() for _ in range(k)]
    for i in range(0, len(data), 64):
        chains[(i // 64) % k].update(data[i : i + 64])
    return hashlib.md5(b"".join(c.digest() for c in chains)).digest()


def boundary_lengths(block: int = 64, blocks: int = 4):
    """Every length around each multiple of the block (and of the padding
    edge at 56 mod 64) up to `blocks` blocks."""
    out = set()
    for b in range(blocks + 1):
        for edge in (b * block, b * block + 56):
            for d in (-2, -1, 0, 1, 2):
                if edge + d >= 0:
                    out.add(edge + d)
    return sorted(out)


@pytest.fixture
def rng():
    seed = int(os.environ.get("LINERATE_TEST_SEED", "0")) or random.randrange(1 << 30)
    print(f"LINERATE_TEST_SEED={seed}")
    return random.Random(seed)


def required_peers() -> bool:
    """scripts/test-all.sh installs every peer and sets this: a missing
    peer is then a failure, not a skip."""
    return os.environ.get("LINERATE_PEERS") == "required"


def ticks_during(call) -> int:
    """How often another Python thread ran during the middle half of
    `call()`. A call that holds the GIL lets the other thread in only
    around its start (the interpreter hands the GIL over at the call
    instruction, for up to one switch interval, 5 ms): in the middle of a
    call of 40 ms or more, zero."""
    import threading
    import time

    stop = threading.Event()
    ticks = []

    def spin():
        while not stop.is_set():
            ticks.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.02)
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    t.join()
    assert end - start > 0.04, f"the call took {end - start:.3f} s: too short to tell"
    quarter = (end - start) / 4
    return sum(start + quarter < x < end - quarter for x in ticks)


def run_child(code, *args, timeout=60, limit_memory=None):
    """`code` in a fresh interpreter (its address space limited to
    `limit_memory` bytes if given); its CompletedProcess. A crash there is
    a negative return code, not the end of the test run; a child still
    running after `timeout` seconds is killed and fails the test."""
    prelude = ""
    if limit_memory:
        prelude = (
            "import resource\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({limit_memory}, {limit_memory}))\n"
        )
    try:
        return subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(code), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the call still ran after {timeout} s (killed): {e.stderr!r}")
