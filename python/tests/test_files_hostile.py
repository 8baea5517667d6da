"""The file functions (hash_file, hash_files, s3_etag, s3_checksums) as a
hostile or careless caller meets them, against what hashlib, open() and
os.fspath do:

- Ctrl-C stops every call, as it stops hashlib.file_digest: on a FIFO with
  no writer, /dev/zero and a large file (each run in a subprocess with a
  timeout, so that a call that ignores SIGINT fails the test instead of
  hanging it); the S3 functions, which need a file's size, refuse a FIFO or
  device at once;
- S3's limits on parts (5 MiB to 5 GiB but the last, at most 10,000): a
  part size that would break them is a ValueError naming the rule, before
  anything is read (in a subprocess with its address space limited: the
  old code kept hundreds of bytes per part and aborted);
- a non-blocking file object with no data ready is BlockingIOError, not
  the end of the file;
- /proc and /sys files (whose size the kernel makes up) hash as hashlib
  hashes them;
- a lone str, bytes or path where an iterable is expected is a TypeError
  naming the parameter; an exception from __fspath__ passes through
  unchanged; a NUL in a path is open()'s ValueError.
"""

import base64
import errno
import hashlib
import os
import pathlib
import sys
import zlib

import pytest

import linerate_hash as linerate
from conftest import run_child

MIB = 1 << 20


def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def sparse(tmp_path, size, name="sparse"):
    """A file of `size` bytes of holes: read as zeros, fast, taking no disk."""
    path = tmp_path / name
    with open(path, "wb") as f:
        f.truncate(size)
    return path


# The child interrupts itself from a timer thread half a second in, as a
# Ctrl-C would, and says how long after the signal the call ended.
INTERRUPTED = """
import os, signal, sys, threading, time
import linerate_hash as linerate
path = sys.argv[1]
call = {call}
sent = []
def interrupt():
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.5, interrupt).start()
try:
    call(path)
except KeyboardInterrupt:
    print("interrupted after %.3f" % (time.monotonic() - sent[0]))
else:
    print("returned")
"""

CALLS = {
    "hash_file": "lambda p: linerate.hash_file(p)",
    "hash_files": "lambda p: linerate.hash_files([p, p], threads=2)",
    "s3_etag": "lambda p: linerate.s3_etag(p)",
    "s3_checksums": "lambda p: linerate.s3_checksums(p, ['md5', 'crc32', 'sha256'])",
}


def assert_interrupted(call, path):
    out = run_child(INTERRUPTED.format(call=CALLS[call]), path, timeout=30)
    assert out.returncode == 0, (out.returncode, out.stderr)
    words = out.stdout.split()
    assert words[:2] == ["interrupted", "after"], (out.stdout, out.stderr)
    # Within a couple of seconds of the signal (a busy machine included).
    assert float(words[2]) < 3, out.stdout


@pytest.mark.parametrize("call", ["hash_file", "hash_files"])
@pytest.mark.parametrize("what", ["fifo", "dev_zero"])
def test_ctrl_c_stops_a_read_that_never_ends(tmp_path, call, what):
    path = fifo(tmp_path) if what == "fifo" else "/dev/zero"
    assert_interrupted(call, path)


@pytest.mark.parametrize("call", list(CALLS))
def test_ctrl_c_stops_a_large_file(tmp_path, call):
    # 1 TiB of holes: minutes of reading.
    assert_interrupted(call, sparse(tmp_path, 1 << 40))


@pytest.mark.parametrize("call", ["s3_etag", "s3_checksums"])
@pytest.mark.parametrize("what", ["fifo", "dev_zero"])
def test_s3_functions_refuse_what_has_no_size(tmp_path, call, what):
    path = fifo(tmp_path) if what == "fifo" else "/dev/zero"
    code = f"""
    import sys
    import linerate_hash as linerate
    try:
        ({CALLS[call]})(sys.argv[1])
    except OSError as e:
        print(type(e).__name__, "|", e)
    """
    out = run_child(code, path, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"OSError | {path}: not a regular file"), out.stdout
    # Through s3_checksums_many with errors="return": the error in place.
    if what == "fifo":
        got = linerate.s3_checksums_many([path], ["crc32"], errors="return")
        assert isinstance(got[0], OSError) and "not a regular file" in str(got[0])


def etag_by_definition(data, part_size):
    parts = [data[i : i + part_size] for i in range(0, len(data), part_size)] or [b""]
    joined = b"".join(hashlib.md5(p).digest() for p in parts)
    return f"{hashlib.md5(joined).hexdigest()}-{len(parts)}"


def test_part_sizes_s3_never_uses_are_refused_naming_the_rule(tmp_path, rng):
    data = rng.randbytes(10_001)
    path = tmp_path / "f"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=r"S3's parts are 5 MiB to 5 GiB \(only the last may be smaller\)") as e:
        linerate.s3_etag(path, 1)
    assert "part_size=1" in str(e.value) and str(path) in str(e.value)
    with pytest.raises(ValueError, match="only the last may be smaller"):
        linerate.s3_checksums(path, ["crc32"], part_size=1000)
    got = linerate.s3_checksums_many([path, path], ["md5"], part_size=4096, errors="return")
    assert all(isinstance(r, ValueError) for r in got)
    # A part above 5 GiB: refused unread (6 GiB of holes, at once).
    huge = sparse(tmp_path, 6 << 30)
    with pytest.raises(ValueError, match="S3's parts are 5 MiB to 5 GiB"):
        linerate.s3_etag(huge, 6 << 30)
    # s3_limits=False takes any part size, still at most 10,000 parts.
    with pytest.raises(ValueError, match="S3 takes at most 10,000 parts"):
        linerate.s3_etag(path, 1, s3_limits=False)
    assert linerate.s3_etag(path, 2, s3_limits=False) == etag_by_definition(data, 2)
    ten_thousand = data[:10_000]
    path.write_bytes(ten_thousand)
    assert linerate.s3_etag(path, 1, s3_limits=False) == etag_by_definition(ten_thousand, 1)
    want = [zlib.crc32(bytes([b])).to_bytes(4, "big") for b in ten_thousand]
    composite = base64.b64encode(zlib.crc32(b"".join(want)).to_bytes(4, "big")).decode()
    assert linerate.s3_checksums(path, ["crc32"], part_size=1, s3_limits=False) == {
        "crc32": f"{composite}-10000"
    }


def test_part_sizes_within_s3s_limits_are_computed(tmp_path, rng):
    # The last part may be smaller than 5 MiB; a small file is one part of
    # any part size, even one above 5 GiB.
    data = rng.randbytes(5 * MIB + 3)
    path = tmp_path / "f"
    path.write_bytes(data)
    assert linerate.s3_etag(path, 5 * MIB) == etag_by_definition(data, 5 * MIB)
    small = tmp_path / "small"
    small.write_bytes(data[:1000])
    for part_size in (1000, 5 * MIB, 6 << 30):
        assert linerate.s3_etag(small, part_size) == etag_by_definition(data[:1000], part_size)
    small.write_bytes(data[:1])
    assert linerate.s3_etag(small, 1) == etag_by_definition(data[:1], 1)


def test_one_byte_parts_of_a_larger_file_are_refused_without_the_memory():
    # The old code kept 300 to 550 bytes per part (3.3 GB for 10 MiB) and
    # aborted where memory ran out: here 1 GiB of address space is plenty
    # for a refusal, far too little for the parts.
    code = """
    import sys, tempfile, os
    import linerate_hash as linerate
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f")
        with open(path, "wb") as f:
            f.write(os.urandom(10 << 20))
        try:
            linerate.s3_checksums(path, ["crc32"], part_size=1)
        except ValueError as e:
            print("refused:", e)
        try:
            linerate.s3_checksums(path, ["crc32"], part_size=1, s3_limits=False)
        except ValueError as e:
            print("refused:", e)
    """
    out = run_child(code, timeout=120, limit_memory=1 << 30)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    lines = out.stdout.splitlines()
    assert len(lines) == 2, out.stdout
    assert "only the last may be smaller" in lines[0]
    assert "10485760 parts of 1 byte: S3 takes at most 10,000 parts" in lines[1]


class NonBlocking:
    """A raw stream that has some bytes, then no data yet (None), as a
    non-blocking pipe or socket says it."""

    def __init__(self, data):
        self.data = data

    def readinto(self, buf):
        if not self.data:
            return None
        n = min(len(buf), len(self.data))
        buf[:n] = self.data[:n]
        self.data = self.data[n:]
        return n


class NonBlockingRead:
    def __init__(self, data):
        self.data = data

    def read(self, size=-1):
        if not self.data:
            return None
        data, self.data = self.data, b""
        return data


def test_a_non_blocking_stream_with_no_data_yet_is_not_its_end():
    for stream in (NonBlocking(b"abc"), NonBlockingRead(b"abc")):
        with pytest.raises(BlockingIOError) as e:
            linerate.hash_file(stream)
        assert e.value.errno == errno.EAGAIN
    # A real one: a non-blocking pipe whose writer is still open.
    r, w = os.pipe()
    try:
        os.set_blocking(r, False)
        os.write(w, b"abc")
        with open(r, "rb", buffering=0, closefd=False) as f:
            with pytest.raises(BlockingIOError):
                linerate.hash_file(f)
    finally:
        os.close(r)
        os.close(w)


def stable_kernel_files():
    """/proc and /sys files whose content is the same from one read to the
    next, where this system has them."""
    names = [
        "/proc/version",
        "/proc/sys/kernel/ostype",
        "/proc/sys/kernel/osrelease",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/devices/system/cpu/online",
    ]
    found = []
    for name in names:
        try:
            with open(name, "rb") as f:
                if f.read():
                    found.append(name)
        except OSError:
            pass
    if not found:
        pytest.skip("no /proc or /sys here")
    return found


def test_proc_and_sys_files_hash_as_hashlib_hashes_them(tmp_path):
    files = stable_kernel_files()
    regular = tmp_path / "regular"
    regular.write_bytes(b"between them")
    for name in files:
        with open(name, "rb") as f:
            data = f.read()
        md5 = hashlib.md5(data)
        with open(name, "rb") as f:
            assert hashlib.file_digest(f, "md5").digest() == md5.digest()
        assert linerate.hash_file(name) == md5.digest(), name
        assert linerate.hash_file(pathlib.Path(name), "md5p8") == linerate.new("md5p8", data).digest()
        # Under 8 MiB: one PUT, the plain MD5; in parts: each part's MD5.
        assert linerate.s3_etag(name) == md5.hexdigest(), name
        assert linerate.s3_etag(name, 5 * MIB) == etag_by_definition(data, 5 * MIB)
        got = linerate.s3_checksums(name, ["md5", "crc32", "sha256"])
        assert got == {
            "md5": md5.hexdigest(),
            "crc32": base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode(),
            "sha256": base64.b64encode(hashlib.sha256(data).digest()).decode(),
        }
    # Among regular files, on several threads, in order.
    listed = [regular, *files, regular] * 3
    want = [hashlib.md5(pathlib.Path(p).read_bytes()).digest() for p in listed]
    assert linerate.hash_files(listed, threads=2) == want
    # The layout of a /proc file is checked once it is read.
    with pytest.raises(ValueError, match="only the last may be smaller"):
        linerate.s3_etag(files[0], 1)


@pytest.mark.parametrize("lone", ["path", b"path", pathlib.Path("path")])
def test_a_lone_path_where_paths_are_expected_is_a_type_error(lone):
    for call in (linerate.hash_files, linerate.s3_checksums_many):
        with pytest.raises(TypeError, match="paths must be an iterable of paths") as e:
            call(lone)
        assert type(lone).__name__ in str(e.value)


@pytest.mark.parametrize("lone", ["md5", b"md5"])
def test_a_lone_name_where_algorithms_are_expected_is_a_type_error(tmp_path, lone):
    path = tmp_path / "f"
    path.write_bytes(b"x")
    with pytest.raises(TypeError, match="algorithms must be an iterable of names"):
        linerate.s3_checksums(path, lone)
    with pytest.raises(TypeError, match="algorithms must be an iterable of names"):
        linerate.s3_checksums_many([path], lone)
    # Any iterable of names is fine; a name that is not a str is named.
    want = {"md5": hashlib.md5(b"x").hexdigest()}
    assert linerate.s3_checksums(path, (a for a in ["md5"])) == want
    with pytest.raises(TypeError, match="algorithms: each must be a str, not int"):
        linerate.s3_checksums(path, ["md5", 5])


class Refuses:
    """A path-like whose __fspath__ raises."""

    class Error(Exception):
        pass

    def __fspath__(self):
        raise Refuses.Error("no path today")


class Returns:
    def __init__(self, value):
        self.value = value

    def __fspath__(self):
        return self.value


PATH_CALLS = {
    "hash_file": lambda p: linerate.hash_file(p),
    "hash_files": lambda p: linerate.hash_files([p]),
    "s3_etag": lambda p: linerate.s3_etag(p),
    "s3_checksums": lambda p: linerate.s3_checksums(p),
    "s3_checksums_many": lambda p: linerate.s3_checksums_many([p], errors="return"),
}


@pytest.mark.parametrize("call", list(PATH_CALLS))
def test_paths_fail_as_open_and_os_fspath_fail(call):
    call = PATH_CALLS[call]
    # __fspath__'s own exception, unchanged.
    with pytest.raises(Refuses.Error, match="no path today"):
        call(Refuses())
    # Whatever os.fspath says about what it cannot take.
    for bad in (3.5, Returns(7)):
        with pytest.raises(TypeError) as want:
            os.fspath(bad)
        with pytest.raises(TypeError) as got:
            call(bad)
        assert str(got.value) == str(want.value)
    # A NUL: open()'s ValueError.
    for bad in ("a\0b", b"a\0b", Returns("a\0b"), Returns(b"a\0b")):
        with pytest.raises(ValueError) as want:
            open(bad, "rb")
        with pytest.raises(ValueError) as got:
            call(bad)
        assert str(got.value) == str(want.value) == "embedded null byte"


def test_dask_takes_no_lone_path_or_name(tmp_path):
    pytest.importorskip("dask")
    import linerate_hash.dask as ldask

    for lone in ("path", b"path", pathlib.Path("path")):
        with pytest.raises(TypeError, match="paths must be an iterable of paths"):
            ldask.hash_files(lone)
    with pytest.raises(TypeError, match="algorithms must be an iterable of names"):
        ldask.s3_checksums([tmp_path / "f"], "md5")
