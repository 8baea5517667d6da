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

import pytest

import linerate_hash as linerate
from conftest import run_child


def run_isolated(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter; it must print "ok" and exit 0."""
    proc = run_child(code, timeout=timeout)
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


# --- Polars: every type but String and Binary is Polars' error -----------------

# name -> (expression building the column, the type's name in the message)
POLARS_REFUSED = {
    "categorical": ('pl.Series(["a", "b", "a"], dtype=pl.Categorical)', "Categorical"),
    "enum": ('pl.Series(["a", "b"], dtype=pl.Enum(["a", "b"]))', "Enum"),
    "struct": ('pl.Series([{"a": 1, "b": "x"}, None])', "Struct"),
    "decimal": ('pl.Series([Decimal("1.5"), None])', "Decimal"),
    "array": ("pl.Series([[1, 2], [3, 4]], dtype=pl.Array(pl.Int64, 2))", "Array(Int64, 2)"),
    "int128": ("pl.Series([1, -2], dtype=pl.Int128)", "Int128"),
    "list_categorical": ('pl.Series([["a"], ["b", "a"]], dtype=pl.List(pl.Categorical))', "List(Categorical)"),
    "object": ("pl.Series([object(), object()], dtype=pl.Object)", "Object"),
    "int64": ("pl.Series([1, 2])", "Int64"),
    "date": ("pl.Series([1, 2], dtype=pl.Date)", "Date"),
    "null": ("pl.Series([None, None])", "Null"),
    "boolean": ("pl.Series([True, None])", "Boolean"),
    "list_string": ('pl.Series([["a"], []])', "List(String)"),
}


@pytest.mark.parametrize("case", sorted(POLARS_REFUSED))
def test_polars_refuses_other_types_with_polars_error(case):
    pytest.importorskip("polars")
    column, shown = POLARS_REFUSED[case]
    run_isolated(
        f"""
        from decimal import Decimal
        import polars as pl
        import linerate_hash.polars as lp

        df = pl.DataFrame({{"x": {column}}})
        runs = {{
            "eager": lambda: df.select(lp.md5("x")),
            "eager hex": lambda: df.select(lp.md5(pl.col("x"), hex=True)),
            "lazy": lambda: df.lazy().select(lp.md5("x")).collect(),
            "streaming": lambda: df.lazy().select(lp.md5("x", hex=True)).collect(engine="streaming"),
        }}
        for how, run in runs.items():
            try:
                out = run()
            except (pl.exceptions.ComputeError, pl.exceptions.InvalidOperationError) as e:
                message = str(e)
                if how == "eager":
                    assert "md5 takes String or Binary columns" in message, message
                    assert {shown!r} in message, message
            else:
                raise AssertionError(f"{{how}}: hashed a {{df.schema['x']}} column: {{out}}")
        # The interpreter and the plugin still work.
        good = pl.DataFrame({{"x": ["abc"]}}).select(lp.md5("x"))
        assert good["x"].to_list() == [bytes.fromhex("900150983cd24fb0d6963f7d28e17f72")]
        print("ok")
        """
    )


def test_polars_object_series_is_refused():
    # The case, as it was written: an Object column hashed the
    # addresses of its values.
    pytest.importorskip("polars")
    run_isolated(
        """
        import polars as pl
        import linerate_hash.polars as lp

        s = pl.Series("o", [object(), object()], dtype=pl.Object)
        try:
            s.to_frame().select(lp.md5("o"))
        except pl.exceptions.PolarsError as e:
            assert "String or Binary" in str(e), str(e)
        else:
            raise AssertionError("an Object column was hashed")
        print("ok")
        """
    )


def test_polars_string_and_binary_still_hash():
    pl = pytest.importorskip("polars")
    import linerate_hash.polars as lp

    rows = ["", "a", "abc", "x" * 100, None]
    df = pl.DataFrame({"s": rows, "b": [None if r is None else r.encode() for r in rows]})
    want = [None if r is None else hashlib.md5(r.encode()).digest() for r in rows]
    got = df.select(lp.md5("s").alias("s"), lp.md5("b").alias("b"))
    assert got["s"].to_list() == want
    assert got["b"].to_list() == want
    hexes = df.lazy().select(lp.md5("s", hex=True)).collect(engine="streaming")["s"].to_list()
    assert hexes == [None if d is None else d.hex() for d in want]


# --- md5_cuda: a bad type string is a ValueError, before any GPU ---------------


BAD_TYPESTRS = ["", "|", "<", ">", "u1", "|u", "<i", "é1", "|é1", "<iéé", "|u1x", "|u-1", "<i99999999999999999999999"]


def test_md5_cuda_bad_typestrs_are_value_errors():
    # Fake arrays: nothing here is device memory, and nothing may be read.
    run_isolated(
        f"""
        import linerate_hash as lh

        class Fake:
            def __init__(self, typestr, n=4):
                self.__cuda_array_interface__ = {{
                    "shape": (n,), "typestr": typestr, "data": (0x1000, False), "version": 3,
                }}

        for bad in {BAD_TYPESTRS!r}:
            for values, offsets, which in (
                (Fake(bad), Fake("<i8"), "values"),
                (Fake("|u1"), Fake(bad), "offsets"),
            ):
                try:
                    lh.md5_cuda(values, offsets)
                except ValueError as e:
                    assert which in str(e) and "typestr" in str(e), (bad, which, str(e))
                else:
                    raise AssertionError(f"typestr {{bad!r}} of {{which}} accepted")
        print("ok")
        """
    )


def test_md5_cuda_checks_types_and_sizes_before_the_gpu():
    class Fake:
        def __init__(self, typestr, n=4):
            self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (0x1000, False), "version": 3}

    # Wrong kinds or byte order are TypeErrors naming the typestr.
    with pytest.raises(TypeError, match="one-byte elements"):
        linerate.md5_cuda(Fake("<i4"), Fake("<i8"))
    with pytest.raises(TypeError, match="little-endian int32, int64 or uint64"):
        linerate.md5_cuda(Fake("|u1"), Fake(">i8"))
    with pytest.raises(TypeError, match="little-endian int32, int64 or uint64"):
        linerate.md5_cuda(Fake("|u1"), Fake("<f8"))
    # A shape no array can have.
    with pytest.raises(ValueError, match="larger than any array"):
        linerate.md5_cuda(Fake("|u1"), Fake("<i8", n=2**62))


# --- a column result that does not fit raises MemoryError ----------------------

# The address space is capped just above what the process holds after
# building its input (8 M rows: 32 MB of offsets, or 128 MB of views), so
# that the 256 MB of hex digests cannot be had but the input and a small
# call still fit.
LIMIT_AFTER_INPUT = """
    import resource

    def cap_address_space(headroom=128 << 20):
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        now = pages * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (now + headroom, resource.RLIM_INFINITY))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_arrow_result_too_large_raises_memory_error():
    pytest.importorskip("pyarrow")
    run_isolated(
        LIMIT_AFTER_INPUT
        + """
    import hashlib
    import numpy as np
    import pyarrow as pa
    import linerate_hash.arrow as la

    n = 8_000_000
    offsets = np.zeros(n + 1, np.int32)
    column = pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(b"")])
    small = pa.array([b"abc"])
    la.md5(small, hex=True)  # warm: everything but the big result is loaded
    cap_address_space()
    try:
        la.md5(column, hex=True)
    except MemoryError as e:
        assert "allocate" in str(e), str(e)
    else:
        raise AssertionError("256 MB of digests fit under the cap: raise n")
    assert la.md5(small).to_pylist() == [hashlib.md5(b"abc").digest()]
    print("ok")
    """
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_polars_result_too_large_is_an_error_not_an_abort():
    # Polars' plugin interface carries Polars' errors only: ComputeError
    # naming the allocation.
    pytest.importorskip("polars")
    run_isolated(
        LIMIT_AFTER_INPUT
        + """
    import polars as pl
    import linerate_hash.polars as lp

    n = 8_000_000
    df = pl.select(x=pl.int_range(n).cast(pl.String)).rechunk()
    pl.DataFrame({"x": ["abc"]}).select(lp.md5("x", hex=True))  # warm
    cap_address_space()
    try:
        df.select(lp.md5("x", hex=True))
    except pl.exceptions.ComputeError as e:
        assert "cannot allocate" in str(e), str(e)
    else:
        raise AssertionError("the digests fit under the cap: raise n")
    print("ok")
    """
    )


# --- hashlib's and the CLI's conventions ---------------------------------------


@pytest.mark.parametrize("flag", [True, False, 0, 1, None, "", [], object()])
def test_usedforsecurity_takes_any_value_as_hashlib_does(flag):
    want = hashlib.md5(b"abc", usedforsecurity=flag).hexdigest()
    assert linerate.md5(b"abc", usedforsecurity=flag).hexdigest() == want
    assert linerate.new("md5", b"abc", usedforsecurity=flag).hexdigest() == want
    assert linerate.new("MD5", b"abc", usedforsecurity=flag).hexdigest() == want
    assert linerate.md5p(16, b"abc", usedforsecurity=flag).digest() == linerate.new("md5p16", b"abc").digest()


def test_usedforsecurity_truth_errors_propagate_as_in_hashlib():
    class NoTruth:
        def __bool__(self):
            raise RuntimeError("no truth value")

    with pytest.raises(RuntimeError, match="no truth value"):
        hashlib.md5(usedforsecurity=NoTruth())
    for call in (
        lambda: linerate.md5(usedforsecurity=NoTruth()),
        lambda: linerate.md5p(4, usedforsecurity=NoTruth()),
        lambda: linerate.new("md5", usedforsecurity=NoTruth()),
    ):
        with pytest.raises(RuntimeError, match="no truth value"):
            call()


NAMES = [
    "md5", "MD5", "Md5", "md5p4", "MD5P4", "Md5P16", "md5p256",
    "md5p+4", "md5p-4", "md5p016", "md5p 4", " md5p4", "md5p4 ", "md5p", "md5p0",
    "md5p6", "md5p260", "md5p1000", "md5p4x", "sha1", "", "md5\x00",
]


@pytest.mark.parametrize("name", NAMES)
def test_one_rule_for_algorithm_names(tmp_path, name):
    # new() accepts exactly the names hash_file() (and so Dask's workers,
    # and `linerate sum -a`, which share linerate's parser) accepts, in
    # either case as hashlib.new("MD5") does, and they hash alike.
    path = tmp_path / "f"
    path.write_bytes(b"some bytes")
    try:
        by_file = linerate.hash_file(str(path), name)
    except ValueError:
        by_file = None
    try:
        by_new = linerate.new(name, b"some bytes").digest()
    except ValueError as e:
        assert "unsupported hash type" in str(e), str(e)
        by_new = None
    assert by_new == by_file, (name, by_new, by_file)
    if name.lower() == "md5":
        assert by_new == hashlib.new(name, b"some bytes").digest()


def test_md5p_plus_4_is_refused_as_the_cli_refuses_it():
    with pytest.raises(ValueError, match=r"unsupported hash type md5p\+4: invalid algorithm 'md5p\+4'"):
        linerate.new("md5p+4")
    assert "md5p4" in linerate.algorithms_available


@pytest.mark.parametrize("nonce", [b"", bytes(17), bytes(100)])
def test_umac_verify_refuses_the_nonces_tag_refuses(nonce):
    mac = linerate.umac(bytes(range(16)), 64)
    with pytest.raises(ValueError) as by_tag:
        mac.tag(b"message", nonce)
    with pytest.raises(ValueError) as by_verify:
        mac.verify(b"message", nonce, bytes(8))
    assert str(by_verify.value) == str(by_tag.value)
    assert f"not {len(nonce)}" in str(by_verify.value)


def test_umac_verify_still_answers_true_and_false():
    mac = linerate.umac(bytes(range(16)), 64)
    tag = mac.tag(b"message", b"nonce-1")
    assert mac.verify(b"message", b"nonce-1", tag)
    assert not mac.verify(b"message", b"nonce-2", tag)
    assert not mac.verify(b"message", b"nonce-1", tag[:-1])
    assert not mac.verify(b"message", b"nonce-1", tag + b"\x00")


@pytest.mark.parametrize("threads", [0, -1])
def test_duckdb_register_refuses_bad_threads_at_once(threads):
    duckdb = pytest.importorskip("duckdb")
    import linerate_hash.duckdb as lduck

    con = duckdb.connect()
    with pytest.raises(ValueError, match="threads must be at least 1"):
        lduck.register(con, threads=threads)
    # Nothing was registered.
    with pytest.raises(duckdb.Error):
        con.sql("SELECT linerate_md5('abc')").fetchall()


def test_duckdb_register_takes_none_and_counts():
    duckdb = pytest.importorskip("duckdb")
    import linerate_hash.duckdb as lduck

    for threads in (None, 1, 3):
        con = duckdb.connect()
        lduck.register(con, threads=threads)
        assert con.sql("SELECT linerate_md5('abc')").fetchall() == [(hashlib.md5(b"abc").hexdigest(),)]


@pytest.mark.parametrize("files_per_task", [0, -1])
def test_dask_files_per_task_below_one_is_refused(tmp_path, files_per_task):
    pytest.importorskip("dask")
    import linerate_hash.dask as ldask

    path = tmp_path / "f"
    path.write_bytes(b"abc")
    with pytest.raises(ValueError, match="files_per_task must be at least 1"):
        ldask.hash_files([str(path)], files_per_task=files_per_task)
    with pytest.raises(ValueError, match="files_per_task must be at least 1"):
        ldask.s3_checksums([str(path)], ["md5"], files_per_task=files_per_task)
    # An empty list is refused alike, not returned before the check.
    with pytest.raises(ValueError, match="files_per_task must be at least 1"):
        ldask.hash_files([], files_per_task=files_per_task)


def test_dask_refuses_names_hash_files_refuses_before_any_task():
    pytest.importorskip("dask")
    import linerate_hash.dask as ldask

    with pytest.raises(ValueError, match="unsupported hash type"):
        ldask.hash_files(["/nonexistent"], algo="md5p+4")
