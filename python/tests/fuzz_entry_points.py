"""Property-based fuzzing (Hypothesis) of the entry points that take
buffers, offsets, Arrow capsules and device-array descriptions from the
caller: whatever they are given, they return what hashlib (or the plain
reference) says, or raise the exception hashlib, NumPy or pyarrow would;
they never crash the interpreter.

Not collected by pytest on its own: `test_fuzz_entry_points.py` runs this
file in a child interpreter, so a crash fails that test with its output
instead of killing the run. The budget is LINERATE_PY_FUZZ_EXAMPLES
examples a property (default 150).

    python -m pytest -q python/tests/fuzz_entry_points.py   # by hand, any budget
"""

import array
import hashlib
import hmac
import os

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import linerate_hash as lh
import linerate_hash.arrow as la
from linerate_hash._linerate import md5_arrow
from conftest import md5p_reference

EXAMPLES = int(os.environ.get("LINERATE_PY_FUZZ_EXAMPLES", "150"))
fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    # Nothing written into the source tree; a failure prints its example.
    database=None,
    suppress_health_check=list(HealthCheck),
)

# Lengths around the block (64) and padding (56) edges, and a few longer.
LENGTHS = st.one_of(
    st.integers(0, 200),
    st.sampled_from([55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4095, 4096, 4097]),
)
DATA = LENGTHS.flatmap(lambda n: st.binary(min_size=n, max_size=n))


def outcome(call):
    """("ok", value) or ("raised", exception class) of `call()`."""
    try:
        return ("ok", call())
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return ("raised", type(e))


# --- md5_many: every kind of item, valid or not --------------------------------


@st.composite
def items(draw):
    """One item for md5_many: bytes-like in every shape the buffer protocol
    has (contiguous or not, any item size, any dimension), or no buffer."""
    data = draw(DATA)
    kind = draw(
        st.sampled_from(
            [
                "bytes",
                "bytearray",
                "memoryview",
                "memoryview-strided",
                "array-I",
                "numpy",
                "numpy-2d",
                "numpy-strided",
                "numpy-readonly",
                "str",
                "int",
                "none",
            ]
        )
    )
    if kind == "bytes":
        return data
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(data)
    if kind == "memoryview-strided":
        return memoryview(data)[:: draw(st.integers(1, 3))]
    if kind == "array-I":
        return array.array("I", data[: len(data) // 4 * 4])
    if kind == "numpy":
        dtype = draw(st.sampled_from(["u1", "<u2", "<i4", "<f8"]))
        width = np.dtype(dtype).itemsize
        return np.frombuffer(data[: len(data) // width * width], dtype=dtype).copy()
    if kind == "numpy-2d":
        a = np.frombuffer(data, dtype="u1").copy()
        return a[: len(a) // 2 * 2].reshape(-1, 2) if len(a) >= 2 else a
    if kind == "numpy-strided":
        return np.frombuffer(data, dtype="u1")[:: draw(st.integers(1, 3))]
    if kind == "numpy-readonly":
        a = np.frombuffer(data, dtype="u1").copy()
        a.flags.writeable = False
        return a
    if kind == "str":
        return data.decode("latin-1")
    if kind == "int":
        return len(data)
    return None


@fuzz
@given(st.lists(items(), max_size=12), st.sampled_from([None, 1, 2, 3]), st.sampled_from(["list", "tuple", "iter"]))
def test_md5_many_is_hashlib_item_by_item(messages, threads, container):
    """The digests hashlib gives each item; or, where hashlib refuses an
    item, the exception hashlib raises for the first such item."""
    expected = []
    refused = None
    for m in messages:
        kind, value = outcome(lambda: hashlib.md5(m).digest())
        if kind == "raised":
            refused = value
            break
        expected.append(value)
    given_as = {"list": list, "tuple": tuple, "iter": iter}[container](messages)
    kind, value = outcome(lambda: lh.md5_many(given_as, threads=threads))
    if refused is None:
        assert (kind, value) == ("ok", expected)
    else:
        assert kind == "raised" and issubclass(value, refused), (value, refused)


# --- md5_many_offsets: values, offsets and out of any shape ------------------------


OFFSET_TYPES = ["<i4", "<i8", "<u4", "<u8", "<i2", "u1", "<f8"]


@st.composite
def offsets_case(draw):
    values = draw(DATA)
    n = len(values)
    dtype = draw(st.sampled_from(OFFSET_TYPES))
    count = draw(st.integers(0, 10))
    if draw(st.booleans()):
        # Valid: a non-decreasing run inside the values.
        offsets = sorted(draw(st.lists(st.integers(0, n), min_size=count, max_size=count)))
    else:
        offsets = draw(st.lists(st.integers(-3, n + 3), min_size=count, max_size=count))
    if np.dtype(dtype).kind == "u":
        offsets = [max(o, 0) for o in offsets]
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        offsets = [min(max(o, info.min), info.max) for o in offsets]
    shape = draw(st.sampled_from(["flat", "2d", "strided"]))
    return values, offsets, dtype, shape


def rows_or_none(values, offsets):
    """Row i is values[offsets[i]:offsets[i + 1]], or None if the offsets
    do not describe rows of `values` (Arrow's rule)."""
    if len(offsets) == 0:
        return None
    if offsets[0] < 0 or offsets[-1] > len(values):
        return None
    if any(b < a for a, b in zip(offsets, offsets[1:])):
        return None
    return [values[a:b] for a, b in zip(offsets, offsets[1:])]


@fuzz
@given(offsets_case(), st.booleans(), st.sampled_from(["none", "right", "short", "readonly"]), st.sampled_from(["bytes", "numpy"]))
def test_md5_many_offsets_is_hashlib_row_by_row(case, hex, out_kind, values_as):
    values, offsets, dtype, shape = case
    arr = np.array(offsets, dtype=dtype)
    if shape == "2d":
        assume(len(arr) % 2 == 0 and len(arr) > 0)
        arr = arr.reshape(-1, 2)
    elif shape == "strided":
        arr = np.repeat(arr, 2)[::2]
    v = values if values_as == "bytes" else np.frombuffer(values, dtype="u1").copy()
    rows = rows_or_none(values, offsets)
    width = 32 if hex else 16
    n = max(len(offsets) - 1, 0)
    out = None
    if out_kind == "right":
        out = np.zeros(n * width, dtype="u1")
    elif out_kind == "short":
        out = np.zeros(max(n * width - 1, 0) if n else 1, dtype="u1")
    elif out_kind == "readonly":
        out = np.zeros(n * width, dtype="u1")
        out.flags.writeable = False
    kind, value = outcome(lambda: lh.md5_many_offsets(v, arr, out, hex=hex))
    # Every fault the call has, and the exceptions each may be reported as
    # (which fault is reported first is the implementation's choice).
    faults = []
    if shape == "2d":
        faults.append((ValueError, TypeError))  # offsets are one row of integers
    if not arr.flags.c_contiguous:
        faults.append((ValueError, BufferError, TypeError))  # NumPy's refusal, or the type's
    if dtype not in ("<i4", "<i8", "<u4", "<u8"):
        faults.append((TypeError,))
    if rows is None:
        faults.append((ValueError,))
    if out_kind == "short":
        faults.append((ValueError,))
    if out_kind == "readonly":
        faults.append((BufferError, ValueError, TypeError))
    if faults:
        assert kind == "raised", f"no error for {faults}: {value!r}"
        assert any(issubclass(value, f) for f in faults), (value, faults)
        return
    digests = [hashlib.md5(r).hexdigest().encode() if hex else hashlib.md5(r).digest() for r in rows]
    assert kind == "ok", value
    got = value if out is None else out.tobytes()
    assert got == b"".join(digests)


@fuzz
@given(DATA, st.integers(0, 8), st.booleans(), st.sampled_from(["values", "offsets"]))
def test_md5_many_offsets_refuses_out_over_its_inputs(values, rows, hex, over):
    """`out` that shares memory with the values or the offsets is refused
    (NumPy's ufuncs copy the inputs there; this refuses: a wrong digest is not an
    option): ValueError, and the inputs are left as they were."""
    width = 32 if hex else 16
    offsets = np.linspace(0, len(values), rows + 1).astype("<i8")
    need = rows * width
    assume(rows > 0 and (over == "offsets" or len(values) > 0))
    if over == "values":
        store = np.zeros(max(len(values), need) + 8, dtype="u1")
        store[: len(values)] = np.frombuffer(values, dtype="u1")
        v = store[: len(values)]
        out = store[:need]
        o = offsets
    else:
        store = np.zeros(max(need // 8 + 1, len(offsets)) + 1, dtype="<i8")
        store[: len(offsets)] = offsets
        o = store[: len(offsets)]
        out = store.view("u1")[:need]
        v = values
    before = (bytes(memoryview(v)), o.tobytes())
    with pytest.raises(ValueError):
        lh.md5_many_offsets(v, o, out, hex=hex)
    assert (bytes(memoryview(v)), o.tobytes()) == before


# --- Arrow: arrays of every binary type, and capsules from hostile producers --------


ARROW_TYPES = [pa.binary(), pa.large_binary(), pa.string(), pa.large_string(), pa.binary_view(), pa.string_view()]


@st.composite
def arrow_arrays(draw):
    kind = draw(st.sampled_from(ARROW_TYPES))
    rows = draw(st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=30))
    values = [None if r is None else (r if pa.types.is_string(kind) or pa.types.is_large_string(kind) or kind == pa.string_view() else r.encode()) for r in rows]
    a = pa.array(values, type=kind)
    start = draw(st.integers(0, len(a)))
    stop = draw(st.integers(start, len(a)))
    return a.slice(start, stop - start)


def row_bytes(a):
    return [None if v is None else (v.encode() if isinstance(v, str) else v) for v in a.to_pylist()]


@fuzz
@given(arrow_arrays(), st.booleans())
def test_arrow_md5_is_hashlib_row_by_row(a, hex):
    got = la.md5(a, hex=hex).to_pylist()
    want = [None if r is None else (hashlib.md5(r).hexdigest() if hex else hashlib.md5(r).digest()) for r in row_bytes(a)]
    assert got == want


@fuzz
@given(st.sampled_from([pa.binary(), pa.large_binary(), pa.string()]), st.lists(st.integers(-4, 40), min_size=1, max_size=8), st.binary(max_size=40), st.binary(max_size=2))
def test_arrow_offsets_from_anywhere(kind, offsets, data, validity):
    """Arrays built from raw buffers, whatever their offsets say: where
    pyarrow's full validation accepts the array, the digests of its rows;
    where it does not, an error (pyarrow's ArrowInvalid is a ValueError)
    or digests, never a crash."""
    width = 8 if kind == pa.large_binary() else 4
    buf = np.array(offsets, dtype=f"<i{width}").tobytes()
    bitmap = pa.py_buffer(validity) if validity and len(validity) * 8 >= len(offsets) - 1 else None
    try:
        a = pa.Array.from_buffers(kind, len(offsets) - 1, [bitmap, pa.py_buffer(buf), pa.py_buffer(data)])
    except (ValueError, pa.ArrowException):
        return
    try:
        a.validate(full=True)
        valid = True
    except (ValueError, pa.ArrowException):
        valid = False
    kind_, value = outcome(lambda: md5_arrow(a))
    if valid:
        assert kind_ == "ok", value
        rows = [None if r is None else hashlib.md5(r if isinstance(r, bytes) else r.encode()).digest() for r in a.to_pylist()]
        assert pa.array(value).to_pylist() == rows
    elif kind_ == "raised":
        assert issubclass(value, ValueError), value


class Producer:
    """An Arrow producer that hands out `capsules` on every call, as a
    buggy or hostile one might."""

    def __init__(self, capsules):
        self.capsules = capsules

    def __arrow_c_array__(self, requested_schema=None):
        return self.capsules


@fuzz
@given(arrow_arrays(), st.sampled_from(["released", "swapped", "schema-twice", "short", "not-capsules", "fresh"]))
def test_arrow_capsules_from_a_hostile_producer(a, how):
    schema, array_ = a.__arrow_c_array__()
    if how == "released":
        # The first consumer takes the array over (and frees it).
        pa.Array._import_from_c_capsule(schema, array_)
        capsules = (schema, array_)
    elif how == "swapped":
        capsules = (array_, schema)
    elif how == "schema-twice":
        capsules = (schema, schema)
    elif how == "short":
        capsules = (schema,)
    elif how == "not-capsules":
        capsules = (b"schema", b"array")
    else:
        capsules = (schema, array_)
    kind, value = outcome(lambda: md5_arrow(Producer(capsules)))
    if how == "fresh":
        assert kind == "ok", value
        assert pa.array(value).to_pylist() == [None if r is None else hashlib.md5(r).digest() for r in row_bytes(a)]
    else:
        assert kind == "raised" and issubclass(value, (ValueError, TypeError)), value


# --- Hash objects, MACs ------------------------------------------------------------


@fuzz
@given(DATA, st.lists(st.integers(0, 300), max_size=6), st.sampled_from(["md5", "md5p4", "md5p8", "md5p16", "md5p64"]))
def test_hash_objects_over_any_split(data, cuts, name):
    h = lh.new(name)
    at = 0
    for c in cuts:
        h.update(memoryview(data)[at : at + c])
        at = min(at + c, len(data))
    copy = h.copy()
    h.update(data[at:])
    copy.update(data[at:])
    want = hashlib.md5(data).digest() if name == "md5" else md5p_reference(data, int(name[4:]))
    assert h.digest() == copy.digest() == want


@fuzz
@given(st.binary(max_size=200), DATA)
def test_hmac_against_the_hmac_module(key, msg):
    want = hmac.new(key, msg, "md5").digest()
    assert lh.hmac_md5(key, msg) == want
    assert lh.HmacKey(key).tag(msg) == want
    assert lh.HmacKey(key).verify(msg, want)


@fuzz
@given(st.binary(min_size=16, max_size=16), DATA, st.binary(max_size=20), st.sampled_from([32, 64, 96, 128]))
def test_umac_nonces_tag_and_verify_agree(key, msg, nonce, bits):
    """A nonce `tag` refuses, `verify` refuses the same way; one it takes,
    `verify` takes with the tag `tag` gave."""
    u = lh.umac(key, bits)
    kind, value = outcome(lambda: u.tag(msg, nonce))
    if kind == "ok":
        assert u.verify(msg, nonce, value)
    else:
        vkind, vvalue = outcome(lambda: u.verify(msg, nonce, b"\0" * (bits // 8)))
        assert vkind == "raised" and vvalue is value


# --- md5_cuda: any description of device arrays --------------------------------------


class Device:
    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


TYPESTRS = st.one_of(st.sampled_from(["", "|", "<", "|u1", "<i4", "<i8", "|b1", "<u8", "é", "|é1", "<f8", "|u"]), st.text(max_size=5))


@st.composite
def interfaces(draw):
    """A `__cuda_array_interface__` that no GPU should ever be asked to read:
    a null data pointer under a non-empty shape, or a malformed field."""
    iface = {
        "shape": draw(st.one_of(st.tuples(st.integers(1, 10)), st.tuples(st.integers(1, 3), st.integers(1, 3)), st.just(()))),
        "typestr": draw(TYPESTRS),
        "data": (0, draw(st.booleans())),
        "version": draw(st.integers(0, 4)),
    }
    if draw(st.booleans()):
        iface["strides"] = draw(st.one_of(st.none(), st.tuples(st.integers(-8, 8))))
    drop = draw(st.sampled_from([None, "shape", "typestr", "data"]))
    if drop:
        del iface[drop]
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([None, 3, "cai", [1, 2]]))
    return iface


@fuzz
@given(interfaces(), interfaces(), st.booleans())
def test_md5_cuda_refuses_what_it_cannot_read(values, offsets, hex):
    kind, value = outcome(lambda: lh.md5_cuda(Device(values), Device(offsets), hex=hex))
    assert kind == "raised" and issubclass(value, (TypeError, ValueError, RuntimeError, OverflowError)), value
