"""Type stubs of the native module linerate_hash._linerate."""

import os
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from typing_extensions import Buffer

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

__version__: str

class Hash:
    """A hashlib-style hash object (MD5 or MD5-P/K)."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, data: Buffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> "Hash": ...

# usedforsecurity: any object, as hashlib takes it (only its truth is read).
def md5(
    data: Optional[Buffer] = None, *, usedforsecurity: object = True, string: Optional[Buffer] = None
) -> Hash: ...
def md5p(k: int, data: Optional[Buffer] = None, *, usedforsecurity: object = True) -> Hash: ...
def new(
    name: str,
    data: Optional[Buffer] = None,
    *,
    usedforsecurity: object = True,
    string: Optional[Buffer] = None,
) -> Hash: ...

class HmacKey:
    """An HMAC key set up once and reused (digest "md5" or "sha1")."""

    def __init__(self, key: Buffer, digest: str = "md5") -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    def tag(self, msg: Buffer, truncate: Optional[int] = None) -> bytes: ...
    def verify(self, msg: Buffer, tag: Buffer, truncate: Optional[int] = None) -> bool: ...
    def tag_many(self, msgs: Iterable[Buffer], truncate: Optional[int] = None) -> List[bytes]: ...

class Umac:
    """UMAC (RFC 4418) with a 16-byte key."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    def tag(self, msg: Buffer, nonce: Buffer) -> bytes: ...
    # A nonce that is not 1 to 16 bytes raises ValueError, as in tag().
    def verify(self, msg: Buffer, nonce: Buffer, tag: Buffer) -> bool: ...
    def tag_many(self, msgs: Iterable[Buffer], nonces: Iterable[Buffer]) -> List[bytes]: ...

def hmac_md5(key: Buffer, msg: Buffer) -> bytes: ...
def umac(key: Buffer, bits: int = 64) -> Umac: ...
def compare_digest(a: Union[Buffer, str], b: Union[Buffer, str]) -> bool: ...
def md5_many(messages: Iterable[Buffer], *, threads: Optional[int] = None) -> List[bytes]: ...
def md5_many_offsets(
    values: Buffer,
    offsets: Buffer,
    out: Optional[Buffer] = None,
    *,
    threads: Optional[int] = None,
    hex: bool = False,
    device: Optional[str] = None,
) -> Optional[bytes]: ...
def md5_cuda(values: object, offsets: object, *, hex: bool = False) -> bytes: ...

class ArrowDigests:
    """The digests of ``md5_arrow``, exported through the Arrow C data
    interface (``pyarrow.array(result)`` takes them over, once)."""

    def __arrow_c_array__(self, requested_schema: Optional[object] = None) -> Tuple[object, object]: ...

def md5_arrow(array: object, *, hex: bool = False, threads: Optional[int] = None) -> ArrowDigests: ...
# Paths as open() takes them: os.fspath's errors (an exception from
# __fspath__ unchanged), ValueError("embedded null byte") for a NUL. Where an
# iterable of paths or names is expected, a lone str, bytes or os.PathLike
# is a TypeError naming the parameter. Every file call stops at Ctrl-C
# (KeyboardInterrupt), as hashlib.file_digest does.
def hash_file(path: _Path, algo: str = "md5") -> bytes: ...
def hash_files(
    paths: Iterable[_Path],
    algo: str = "md5",
    threads: Optional[int] = None,
    errors: str = "raise",
    device: Optional[str] = None,
) -> List[Union[bytes, OSError]]: ...

# The S3 functions: regular files only (a FIFO or device is an OSError, "not
# a regular file"); /proc and /sys files read to their end. A part_size
# that splits a file outside S3's limits (parts of 5 MiB to 5 GiB but the
# last, at most 10,000) raises ValueError naming the rule, unread;
# s3_limits=False computes any part size, still at most 10,000 parts. With
# errors="return" that ValueError, or the OSError, takes the path's place.
def s3_etag(path: _Path, part_size: Optional[int] = None, *, s3_limits: bool = True) -> str: ...
def s3_checksums_many(
    paths: Iterable[_Path],
    algorithms: Optional[Iterable[str]] = None,
    part_size: Optional[int] = None,
    type: Optional[str] = None,
    threads: Optional[int] = None,
    errors: str = "raise",
    *,
    s3_limits: bool = True,
) -> List[Union[Dict[str, str], OSError, ValueError]]: ...

# Test-only, never for use: panics on purpose (where: "here", "detached" with
# the GIL released, "thread" on a worker thread) so that the tests can check
# that a panic raises pyo3_runtime.PanicException instead of aborting Python.
def _test_panic(where: str = "here") -> None: ...
