"""Inputs as a hostile or careless caller hands them over: Arrow C data
interface capsules already released or malformed, buffers another thread
rewrites while the GIL is released, an `out=` that overlaps the inputs,
garbage in null view slots, and errors that keep their exception type.

Every case that could abort or crash the interpreter runs in its own
subprocess, so that a regression fails the test instead of killing
pytest; the concurrency cases keep a second thread mutating for at least
a second. A wrong digest for data changed during a call is allowed (the
docs say so); a crash, a panic or a read outside the buffers is not."""

import hashlib
import sys
import textwrap

import numpy as np
import pytest

import linerate_hash as linerate
from conftest import run_child


def run_isolated(code: str, timeout: float = 120) -> str:
    """Runs `code` in a fresh interpreter; fails unless it exits 0 (a
    SIGSEGV or SIGABRT is a negative return code). Returns its stdout."""
    proc = run_child(code, timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-3000:]}"
    assert "panicked" not in proc.stderr, proc.stderr[-3000:]
    return proc.stdout


# --- 1. Arrow C data interface capsules ------------------------------------

RELEASED_TWICE = """
    import sys
    import pyarrow as pa
    if {system_pool}:
        # freed memory goes straight back to the kernel: reading it faults
        pa.set_memory_pool(pa.system_memory_pool())
    import linerate_hash.arrow as la

    class SameCapsulesTwice:
        def __init__(self, array):
            self.capsules = array.__arrow_c_array__()
        def __arrow_c_array__(self, requested_schema=None):
            return self.capsules

    producer = SameCapsulesTwice(pa.array([b"x" * 100] * 300_000))
    first = pa.Array._import_from_c_capsule(*producer.capsules)
    del first  # the first importer frees the buffers
    try:
        la.md5(producer)
    except ValueError as e:
        print("ValueError:", e)
    else:
        print("no error")
"""


@pytest.mark.parametrize("system_pool", [False, True], ids=["default-pool", "system-pool"])
def test_capsules_handed_out_twice_are_refused(system_pool):
    out = run_isolated(RELEASED_TWICE.format(system_pool=system_pool))
    assert "ValueError: Cannot import released ArrowSchema" in out, out


def test_a_released_array_with_a_live_schema_is_refused():
    out = run_isolated(
        """
        import pyarrow as pa
        import linerate_hash.arrow as la
        array = pa.array([b"abc"] * 1000)
        schema_capsule, array_capsule = array.__arrow_c_array__()
        pa.Array._import_from_c_capsule(array.type.__arrow_c_schema__(), array_capsule)

        class Producer:
            def __arrow_c_array__(self, requested_schema=None):
                return schema_capsule, array_capsule

        try:
            la.md5(Producer())
        except ValueError as e:
            print("ValueError:", e)
        """
    )
    assert "ValueError: Cannot import released ArrowArray" in out, out


def test_md5_takes_the_array_over_and_marks_it_released():
    # The C data interface moves the array to its consumer: after md5 the
    # capsule's struct is released, and pyarrow says so if asked again.
    import pyarrow as pa

    import linerate_hash.arrow as la

    array = pa.array([b"abc", None, b"de"])
    capsules = array.__arrow_c_array__()

    class Producer:
        def __arrow_c_array__(self, requested_schema=None):
            return capsules

    got = la.md5(Producer())
    assert got.to_pylist() == [hashlib.md5(b"abc").digest(), None, hashlib.md5(b"de").digest()]
    with pytest.raises(pa.ArrowInvalid, match="released ArrowArray"):
        pa.Array._import_from_c_capsule(*capsules)


# A producer written with ctypes, whose structs a test fills with what a
# buggy or hostile Arrow library might: each field the interface lets a
# consumer check is checked, with a ValueError, before anything is read.
CTYPES_PRODUCER = """
    import ctypes, hashlib
    import linerate_hash.arrow as la

    class Schema(ctypes.Structure):
        pass
    SchemaRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(Schema))
    Schema._fields_ = [
        ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
        ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
        ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p),
        ("release", SchemaRelease), ("private_data", ctypes.c_void_p),
    ]

    class Array(ctypes.Structure):
        pass
    ArrayRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(Array))
    Array._fields_ = [
        ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
        ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
        ("buffers", ctypes.c_void_p), ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p),
        ("release", ArrayRelease), ("private_data", ctypes.c_void_p),
    ]

    releases = []

    @SchemaRelease
    def release_schema(p):
        p.contents.release = SchemaRelease()

    @ArrayRelease
    def release_array(p):
        releases.append(1)
        p.contents.release = ArrayRelease()

    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

    class Producer:
        def __init__(self, fmt, buffer_list, rows, /, **fields):
            self.keep = [fmt, buffer_list]
            self.schema = Schema(format=fmt, flags=2, release=release_schema)
            self.bufs = (ctypes.c_void_p * max(len(buffer_list), 1))(
                *[ctypes.cast(b, ctypes.c_void_p) if b is not None else None for b in buffer_list])
            self.array = Array(length=rows, null_count=0, offset=0, n_buffers=len(buffer_list),
                               buffers=ctypes.cast(self.bufs, ctypes.c_void_p), release=release_array)
            for name, value in fields.items():
                setattr(self.schema if name.startswith("schema_") else self.array,
                        name.removeprefix("schema_"), value)
        def __arrow_c_array__(self, requested_schema=None):
            return (new_capsule(ctypes.addressof(self.schema), b"arrow_schema", None),
                    new_capsule(ctypes.addressof(self.array), b"arrow_array", None))

    def i32(*v): return (ctypes.c_int32 * len(v))(*v)
    def i64(*v): return (ctypes.c_int64 * len(v))(*v)
    def u8(data): return (ctypes.c_uint8 * max(len(data), 1))(*data)
    values = u8(b"hello world, a row longer than twelve bytes")

    def binary(**fields):
        return Producer(b"z", [None, i32(0, 5, 11), values], 2, **fields)

    def view(**fields):
        # one view into buffer 0 (16 bytes at 0), the sizes buffer last
        v = (ctypes.c_int32 * 4)(16, int.from_bytes(b"hell", "little"), 0, 0)
        return Producer(b"vz", [None, v, values, i64(len(bytes(values)))], 1, **fields)

    def attempt(producer):
        try:
            got = la.md5(producer).to_pylist()
        except ValueError as e:
            print("ValueError:", e)
        else:
            print("ok", [None if d is None else d.hex() for d in got], "releases", len(releases))
"""

HOSTILE_ARRAYS = {
    # case: (producer expression, words the ValueError must contain)
    "schema-released": ("binary(schema_release=SchemaRelease())", "released ArrowSchema"),
    "no-format": ("binary(schema_format=None)", "format"),
    "array-released": ("binary(release=ArrayRelease())", "released ArrowArray"),
    "negative-length": ("binary(length=-1)", "length"),
    "negative-offset": ("binary(offset=-5)", "offset"),
    "huge-offset": ("binary(offset=2**62)", "offset"),
    "too-few-buffers": ("Producer(b'z', [None], 2)", "buffers"),
    "no-buffers-array": ("binary(buffers=None)", "buffers"),
    "null-offsets-buffer": ("Producer(b'z', [None, None, values], 2)", "buffer 1"),
    "negative-last-offset": ("Producer(b'z', [None, i32(0, -7), values], 1)", "negative"),
    "nulls-without-validity": ("binary(null_count=1)", "validity"),
    "null-count-past-length": ("binary(null_count=3)", "null_count"),
    "children": ("binary(n_children=1)", "children"),
    "view-too-few-buffers": ("Producer(b'vz', [None], 1)", "buffers"),
    "view-negative-size": ("Producer(b'vz', [None, i32(16, 0, 0, 0), values, i64(-1)], 1)", "size"),
    "view-null-data-buffer": ("Producer(b'vz', [None, i32(16, 0, 0, 0), None, i64(40)], 1)", "buffer 2"),
    "view-into-no-buffer": ("Producer(b'vz', [None, i32(16, 0, 7, 0)], 1)", "buffer 7"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_ARRAYS))
def test_malformed_capsules_raise_value_error(case):
    producer, words = HOSTILE_ARRAYS[case]
    out = run_isolated(CTYPES_PRODUCER + textwrap.indent(f"\nattempt({producer})\n", "    "))
    assert out.startswith("ValueError:") and words in out, out


def test_well_formed_ctypes_arrays_hash_and_are_released_once():
    out = run_isolated(
        CTYPES_PRODUCER
        + """
    attempt(binary())
    attempt(view())
    # null_count -1 (not computed) is allowed: the bitmap says which are null
    attempt(Producer(b"z", [u8([0b01]), i32(0, 5, 11), values], 2, null_count=-1))
    """
    )
    hello, world = hashlib.md5(b"hello").hexdigest(), hashlib.md5(b" world").hexdigest()
    long = hashlib.md5(b"hello world, a r").hexdigest()
    lines = out.splitlines()
    assert lines[0] == f"ok ['{hello}', '{world}'] releases 1", out
    assert lines[1] == f"ok ['{long}'] releases 2", out
    assert lines[2].startswith(f"ok ['{hello}', None] releases 3"), out


# --- 2. inputs rewritten by another thread while the GIL is released --------

MUTATOR = """
    import threading, time
    import numpy as np
    stop = threading.Event()
    def run_while_mutating(mutate, call, seconds=1.2):
        # `mutate` runs in a loop on a second thread for the whole time;
        # `call` runs on this one as often as it can. Returns how the calls
        # ended: results checked by `call`, or the documented ValueError.
        def loop():
            rng = np.random.default_rng(7)
            while not stop.is_set():
                mutate(rng)
        t = threading.Thread(target=loop)
        t.start()
        outcomes = {"ok": 0, "ValueError": 0}
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                try:
                    call()
                    outcomes["ok"] += 1
                except ValueError:
                    outcomes["ValueError"] += 1
        finally:
            stop.set()
            t.join()
        print(outcomes)
        assert sum(outcomes.values()) > 0
"""


def test_offsets_rewritten_during_md5_many_offsets():
    run_isolated(
        MUTATOR
        + """
    import linerate_hash as linerate
    n = 100_000
    values = np.random.default_rng(1).integers(0, 256, 64 * n, dtype=np.uint8)
    for dtype in (np.int64, np.int32):
        good = np.arange(n + 1, dtype=dtype) * 64
        offsets = good.copy()
        def mutate(rng):
            offsets[:] = rng.integers(-(2**31), 2**31 - 1, n + 1, dtype=dtype)
            offsets[:] = good
            time.sleep(0.001)  # lets a call start on good offsets, to be rewritten while it hashes
        def call():
            assert len(linerate.md5_many_offsets(values, offsets, threads=2)) == 16 * n
            out = np.empty((n, 32), np.uint8)
            assert linerate.md5_many_offsets(values, offsets, out, hex=True, threads=1) is None
        run_while_mutating(mutate, call)
    """
    )


def test_list_grown_shrunk_and_replaced_during_md5_many():
    run_isolated(
        MUTATOR
        + """
    import hashlib
    import linerate_hash as linerate
    big = bytes(8 << 20)          # long enough to hash with the GIL released a while
    small = b"row"
    digests = {hashlib.md5(big).digest(), hashlib.md5(small).digest()}
    items = [big]
    def mutate(rng):
        items.extend([small] * int(rng.integers(1, 6000)))
        if len(items) > 30_000:
            del items[1:]
        if rng.integers(2):
            items[0] = bytes(big)  # an equal object in its place
        if rng.integers(10) == 0:
            items.clear()
            items.append(big)
    def call():
        got = linerate.md5_many(items, threads=1)
        # each digest is of an item that was in the list: never of freed memory
        assert set(got) <= digests, set(got) - digests
    run_while_mutating(mutate, call)
    """
    )


def test_numpy_items_rewritten_during_md5_many():
    run_isolated(
        MUTATOR
        + """
    import linerate_hash as linerate
    rows = [np.zeros(1 << 16, np.uint8) for _ in range(200)]
    def mutate(rng):
        rows[int(rng.integers(len(rows)))][:] = rng.integers(0, 256, 1 << 16, dtype=np.uint8)
    def call():
        assert len(linerate.md5_many(rows, threads=2)) == len(rows)
    run_while_mutating(mutate, call)
    """
    )


@pytest.mark.parametrize("kind", ["binary", "large_binary", "string", "binary_view"])
def test_arrow_buffers_rewritten_during_md5(kind):
    run_isolated(
        MUTATOR
        + f"""
    import pyarrow as pa
    import linerate_hash.arrow as la
    kind = "{kind}"
    n = 50_000
    values = np.full(64 * n, ord("a"), np.uint8)
    data = pa.py_buffer(values)
    if kind == "binary_view":
        good = np.zeros((n, 4), np.int32)
        good[:, 0] = 64                                  # length: out of line
        good[:, 1] = int.from_bytes(b"aaaa", "little")   # prefix
        good[:, 3] = np.arange(n) * 64                   # offset in buffer 0
        layout, words = good.copy(), np.int32
        array = pa.Array.from_buffers(pa.binary_view(), n, [None, pa.py_buffer(layout), data])
    else:
        words = np.int64 if kind == "large_binary" else np.int32
        good = np.arange(n + 1, dtype=words) * 64
        layout = good.copy()
        array = pa.Array.from_buffers(getattr(pa, kind)(), n, [None, pa.py_buffer(layout), data])
    info = np.iinfo(words)
    # The C data interface gives a binary array's values buffer no size but
    # its last offset: that one is the producer's promise, and rewriting it
    # would make any consumer, pyarrow too, read past the buffer (the docs
    # say so). Every other offset, every view and every byte may change.
    rewritten = layout if kind == "binary_view" else layout[:-1]
    def mutate(rng):
        rewritten[...] = rng.integers(info.min, info.max, rewritten.shape, dtype=words)
        values[:] = rng.integers(0, 256, values.size, dtype=np.uint8)
        rewritten[...] = good[: len(rewritten)]
        time.sleep(0.001)  # lets a call start on a valid array, to be rewritten while it hashes
    def call():
        for hex in (False, True):
            got = la.md5(array, hex=hex, threads=2)
            assert len(got) == n
    run_while_mutating(mutate, call)
    """
    )


# --- 3. out= overlapping the inputs ----------------------------------------


def test_out_overlapping_values_is_refused():
    memory = bytearray(range(256)) * 16
    view = memoryview(memory)
    offsets = np.arange(0, 1025, 64, dtype=np.int64)  # 16 rows of values[:1024]
    for start in (0, 512, 1008, 1023):
        with pytest.raises(ValueError, match="out overlaps values"):
            linerate.md5_many_offsets(view[:1024], offsets, out=view[start : start + 256])
    # right next to the values is not an overlap
    want = b"".join(hashlib.md5(bytes(memory[i : i + 64])).digest() for i in range(0, 1024, 64))
    assert linerate.md5_many_offsets(view[:1024], offsets, out=view[1024:1280]) is None
    assert bytes(memory[1024:1280]) == want


def test_out_overlapping_offsets_is_refused():
    out = run_isolated(
        """
        import numpy as np
        import linerate_hash as linerate
        memory = np.zeros(4096, np.uint8)
        offsets = memory[:17 * 8].view(np.int64)
        offsets[:] = np.arange(17) * 64
        values = bytes(range(256)) * 4
        for start in (0, 64, 128):
            try:
                linerate.md5_many_offsets(values, offsets, out=memory[start:start + 256])
            except ValueError as e:
                print("ValueError:", e)
        """
    )
    assert out.count("ValueError: out overlaps offsets") == 3, out


# --- 12. garbage views in null slots -----------------------------------------


def garbage_in_null_views():
    import pyarrow as pa

    data = np.frombuffer(b"0123456789abcdefghijklmnopqrstuvwxyz" * 4, np.uint8).copy()
    views = np.zeros((5, 4), np.int32)
    views[:, 0] = 20
    views[:, 3] = np.arange(5) * 20
    for i in range(5):
        views[i, 1] = data[20 * i : 20 * i + 4].view(np.int32)[0]
    views[1] = [100, 0, 99, 0]  # a buffer that is not there
    views[3] = [2**31 - 1, 0, 0, 2**31 - 1]  # far past the end of buffer 0
    valid = np.packbits(np.array([1, 0, 1, 0, 1], bool), bitorder="little")
    rows = [bytes(data[20 * i : 20 * i + 20]) if i % 2 == 0 else None for i in range(5)]
    return views, data, valid, rows


@pytest.mark.parametrize("kind", ["binary_view", "string_view"])
def test_garbage_views_in_null_slots_are_not_read(kind):
    import pyarrow as pa

    import linerate_hash.arrow as la

    views, data, valid, rows = garbage_in_null_views()
    array = pa.Array.from_buffers(getattr(pa, kind)(), 5, [pa.py_buffer(valid), pa.py_buffer(views), pa.py_buffer(data)])
    array.validate(full=True)  # pyarrow accepts it
    for hex in (False, True):
        got = la.md5(array, hex=hex).to_pylist()
        assert got == [None if r is None else (hashlib.md5(r).hexdigest() if hex else hashlib.md5(r).digest()) for r in rows]
    # and a slice that starts between them keeps its nulls in place
    got = la.md5(array.slice(1, 3)).to_pylist()
    assert got == [None, hashlib.md5(rows[2]).digest(), None]


# --- 11. errors that keep their kind -----------------------------------------


def test_invalid_arrow_data_raises_value_error():
    # In a subprocess: the arrays are invalid, and pyarrow's own repr of
    # them (in a failure's traceback) reads outside their buffers.
    out = run_isolated(
        """
        import numpy as np
        import pyarrow as pa
        import linerate_hash.arrow as la
        data = np.frombuffer(b"0123456789abcdefghijklmnopqrstuvwxyz" * 4, np.uint8).copy()
        pointing_nowhere = np.array([[20, 0, 0, 0], [100, 0, 99, 0]], np.int32)
        decreasing = np.array([0, 5, 3, 8], np.int32)
        for kind, n, layout in [(pa.binary_view(), 2, pointing_nowhere), (pa.binary(), 3, decreasing)]:
            array = pa.Array.from_buffers(kind, n, [None, pa.py_buffer(layout), pa.py_buffer(data)])
            try:
                la.md5(array)
            except Exception as e:
                print(f"{type(e).__name__}: {e}")
        try:
            la.md5(pa.array([1, 2, 3]))
        except Exception as e:
            print(f"{type(e).__name__}: {e}")
        """
    )
    lines = out.splitlines()
    assert lines[0] == "ValueError: row 1 points into buffer 99 of 1", out
    assert lines[1] == "ValueError: offset 2 is less than offset 1", out
    # a wrong type of array stays a TypeError
    assert lines[2].startswith("TypeError: md5 takes binary, string"), out


def test_md5_many_keeps_the_items_exception_type():
    released = memoryview(b"abc")
    released.release()
    with pytest.raises(ValueError, match="^item 1: operation forbidden on released memoryview") as e:
        linerate.md5_many([b"a", released])
    assert isinstance(e.value.__cause__, ValueError)
    with pytest.raises(ValueError, match="^item 2: ndarray is not C-contiguous"):
        linerate.md5_many([b"a", b"b", np.arange(10)[::2]])

    class NoExport:
        def __buffer__(self, flags):
            raise BufferError("not now")

    if sys.version_info >= (3, 12):
        with pytest.raises(BufferError, match="^item 0: not now"):
            linerate.md5_many([NoExport()])
    # an item with no buffer at all is still hashlib's TypeError
    with pytest.raises(TypeError, match="^item 0: object supporting the buffer API required"):
        linerate.md5_many([3])


@pytest.mark.parametrize("shape", [(2, 2), (1, 3), (3, 1), ()])
def test_offsets_must_be_one_dimensional(shape):
    offsets = np.zeros(shape, np.int64)
    with pytest.raises(ValueError, match=f"offsets must be 1-dimensional, not {len(shape)}-D"):
        linerate.md5_many_offsets(b"abcd", offsets)
