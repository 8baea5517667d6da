"""No call from Python takes the interpreter down (issue 33, points 4, 5
and 11's conventions of the hash objects, MACs and integrations).

A panic inside the module raises ``pyo3_runtime.PanicException`` (the
module is built to unwind); the Polars plugin refuses every type but
String and Binary with Polars' error instead of panicking (or hashing an
Object column's addresses); ``md5_cuda`` checks type strings before it
indexes them; a column result too large for memory raises MemoryError.
Each case that could abort or crash runs in its own interpreter, so that a
regression fails its test instead of killing pytest."""

import hashlib
import subprocess
import sys
import textwrap

import pytest

import linerate_hash as linerate


def run_isolated(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter; it must print "ok" and exit 0."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), (
        f"exit status {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    )
    return proc


# --- a panic is an exception -------------------------------------------------


def test_a_deliberate_panic_raises_panic_exception():
    # Holding the GIL, with it released, and on a worker thread (the column
    # functions split their work so): each a PanicException, and the
    # interpreter goes on (it calls the module again afterwards).
    run_isolated(
        """
        import hashlib
        from linerate_hash import _linerate as m

        for where in ("here", "detached", "thread"):
            try:
                m._test_panic(where)
            except BaseException as e:
                assert type(e).__name__ == "PanicException", (where, type(e))
                assert type(e).__module__ == "pyo3_runtime", type(e).__module__
                if where != "thread":  # the scope re-raises with its own message
                    assert "deliberate panic" in str(e), (where, str(e))
            else:
                raise AssertionError(f"_test_panic({where!r}) returned")
        assert m.md5(b"abc").digest() == hashlib.md5(b"abc").digest()
        print("ok")
        """
    )


def test_panic_messages_survive_the_polars_plugin():
    # Loading the Polars plugin installs pyo3-polars' panic hook, which
    # keeps panic messages off stderr unless POLARS_VERBOSE is set: the
    # exception must still carry the message.
    pytest.importorskip("polars")
    run_isolated(
        """
        import polars as pl
        import linerate_hash.polars as lp
        from linerate_hash import _linerate as m

        pl.DataFrame({"x": ["a"]}).select(lp.md5("x"))
        try:
            m._test_panic()
        except BaseException as e:
            assert type(e).__name__ == "PanicException", type(e)
            assert "deliberate panic" in str(e), str(e)
        else:
            raise AssertionError("_test_panic returned")
        print("ok")
        """
    )


def test_test_panic_takes_known_places_only():
    with pytest.raises(ValueError, match="where must be"):
        linerate._linerate._test_panic("elsewhere")
