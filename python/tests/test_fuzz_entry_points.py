"""Runs the Hypothesis properties of fuzz_entry_points.py (every entry
point that takes buffers, offsets, Arrow capsules or device-array
descriptions) in a child interpreter: a crash there fails this test with
the child's output instead of taking pytest down. The budget is
LINERATE_PY_FUZZ_EXAMPLES examples a property (the test command's
default: 150)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def test_entry_points_under_hypothesis():
    pytest.importorskip("hypothesis")
    env = dict(os.environ)
    env.setdefault("LINERATE_PY_FUZZ_EXAMPLES", "150")
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(HERE / "fuzz_entry_points.py")],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = child.stdout[-6000:] + child.stderr[-4000:]
    assert child.returncode == 0, f"exit {child.returncode} (a negative one is the signal that killed it):\n{out}"
