"""hash_file, hash_files and s3_etag against hashlib and the hashlib-only
ETag reference (scripts/etag_reference.py)."""

import errno
import hashlib
import importlib.util
import os
import pathlib
import subprocess
import sys
import threading

import pytest

import linerate_hash as linerate
from conftest import md5p_reference, ticks_during

ROOT = pathlib.Path(__file__).resolve().parents[2]


def etag_reference():
    spec = importlib.util.spec_from_file_location("etag_reference", ROOT / "scripts" / "etag_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_hash_file_paths_and_objects(tmp_path, rng):
    for n in (0, 1, 63, 64, 65, 4095, (1 << 20) + 3):
        data = rng.randbytes(n)
        path = write(tmp_path, f"f{n}", data)
        want = hashlib.md5(data).digest()
        assert linerate.hash_file(path) == want
        assert linerate.hash_file(str(path)) == want
        assert linerate.hash_file(os.fsencode(path)) == want
        with open(path, "rb") as f:
            assert linerate.hash_file(f) == want
        assert linerate.hash_file(path, "md5p16") == md5p_reference(data, 16)
    dash = write(tmp_path, "-", b"not stdin")
    os.chdir(tmp_path)
    assert linerate.hash_file("-") == hashlib.md5(b"not stdin").digest()
    assert linerate.hash_files(["-"]) == [hashlib.md5(b"not stdin").digest()]
    assert dash.exists()


@pytest.mark.parametrize("threads", [1, 2, 8, None])
def test_hash_files_in_order(tmp_path, rng, threads):
    datas = [rng.randbytes(rng.choice([0, 10, 64, 5000, 300000, 3 << 20])) for _ in range(60)]
    paths = [write(tmp_path, f"{i:03}", d) for i, d in enumerate(datas)]
    rng.shuffle(paths)
    want = [hashlib.md5(p.read_bytes()).digest() for p in paths]
    assert linerate.hash_files(paths, threads=threads) == want
    want16 = [md5p_reference(p.read_bytes(), 8) for p in paths]
    assert linerate.hash_files(paths, algo="md5p8", threads=threads) == want16


def test_missing_and_unreadable(tmp_path):
    good = write(tmp_path, "good", b"abc")
    missing = tmp_path / "missing"
    with pytest.raises(FileNotFoundError) as e:
        linerate.hash_file(missing)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(missing)
    with pytest.raises(IsADirectoryError):
        linerate.hash_file(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        linerate.hash_files([good, missing, tmp_path])
    assert e.value.filename == str(missing)
    out = linerate.hash_files([good, missing, tmp_path], errors="return")
    assert out[0] == hashlib.md5(b"abc").digest()
    assert isinstance(out[1], FileNotFoundError) and isinstance(out[2], IsADirectoryError)
    with pytest.raises(ValueError, match="errors must be"):
        linerate.hash_files([good], errors="ignore")
    with pytest.raises(ValueError, match="threads"):
        linerate.hash_files([good], threads=0)
    with pytest.raises(ValueError, match="algo"):
        linerate.hash_file(good, "sha256")
    with pytest.raises(TypeError, match="os.PathLike"):
        linerate.hash_file(3.5)
    f = open(good, "rb")
    f.close()
    with pytest.raises(ValueError, match="closed file"):
        linerate.hash_file(f)


def test_s3_etag(tmp_path, rng):
    ref = etag_reference()
    mib = 1 << 20
    cases = [
        (0, None),
        (1000, None),
        (8 * mib - 1, None),
        (8 * mib, None),
        (8 * mib + 1, None),
        (0, 5 * mib),
        (5 * mib, 5 * mib),
        (5 * mib + 1, 5 * mib),
        (11 * mib + 7, 5 * mib),
        (3000, 1000),
    ]
    for n, part in cases:
        path = write(tmp_path, f"e{n}-{part}", rng.randbytes(n))
        with open(path, "rb") as f:
            threshold = 0 if part else ref.AWS_THRESHOLD
            want = ref.etag(f, n, part or ref.aws_part_size(n), threshold, False)
        # Parts smaller than S3's 5 MiB only with s3_limits=False.
        small = part is not None and part < 5 * mib
        assert linerate.s3_etag(path, part, s3_limits=not small) == want, (n, part)
    with pytest.raises(FileNotFoundError):
        linerate.s3_etag(tmp_path / "nope")
    with pytest.raises(ValueError, match="positive"):
        linerate.s3_etag(path, 0)


def test_file_calls_release_the_gil(tmp_path):
    path = write(tmp_path, "big", bytes(96 << 20))
    assert ticks_during(lambda: linerate.hash_files([path, path], threads=1)) > 0
    assert ticks_during(lambda: linerate.hash_file(path, "md5")) > 0
    # One part: one stream, long enough to see (twelve 8 MiB parts share
    # the lanes and can finish within a switch interval or two).
    assert ticks_during(lambda: linerate.s3_etag(path, 128 << 20)) > 0


CHANGING_CHILD = """
import os, sys
import linerate_hash as linerate
paths = sys.argv[1:]
for p, r in zip(paths, linerate.hash_files(paths, threads=1, errors="return")):
    print(p, r.hex() if isinstance(r, bytes) else "error: " + str(r))
print(linerate.hash_file(paths[0]).hex())
"""


@pytest.mark.parametrize("io", ["read", "map"])
@pytest.mark.parametrize("change", ["truncate", "append"])
def test_a_file_that_changes_while_hashed_is_an_error(tmp_path, change, io):
    # The engine's LINERATE_TEST_PAUSE hook stops the child after the first
    # piece of `big`; the file changes then, for real, mid-read. The hook
    # fires once per process: the second call (hash_file) sees the file as
    # it now is, whole, and hashes it. Mapped, a file that shrinks faults
    # (SIGBUS): with faulthandler on, as under pytest, the child must
    # neither die nor print a traceback.

    big = write(tmp_path, "big", bytes(range(256)) * (32 << 10))
    other = write(tmp_path, "other", b"abc")
    fifos = tmp_path / "fifos"
    fifos.mkdir()
    os.mkfifo(fifos / "paused")
    os.mkfifo(fifos / "resume")
    child = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-c", CHANGING_CHILD, str(big), str(other)],
        env={**os.environ, "LINERATE_TEST_PAUSE": str(fifos), "LINERATE_FILE_IO": io},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    got = []
    reader = threading.Thread(target=lambda: got.append((fifos / "paused").read_text()), daemon=True)
    reader.start()
    reader.join(120)
    if not got:
        child.kill()
        pytest.fail("the child never paused: LINERATE_TEST_PAUSE did not fire")
    assert got == ["paused\n"]
    with open(big, "r+b") as f:
        if change == "truncate":
            f.truncate(1000)
        else:
            f.seek(0, os.SEEK_END)
            f.write(b"and then some")
    (fifos / "resume").write_text("go\n")
    out, err = child.communicate(timeout=120)
    assert (child.returncode, err) == (0, "")
    assert out.splitlines() == [
        f"{big} error: {big}: file changed while reading",
        f"{other} {hashlib.md5(b'abc').hexdigest()}",
        hashlib.md5(big.read_bytes()).hexdigest(),
    ]
