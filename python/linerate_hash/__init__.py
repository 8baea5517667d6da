"""linerate_hash (the `linerate-hash` distribution; linerate's Python
package): MD5 at the latency bound, multi-buffer MD5, RFC 1810's MD5-P/K,
HMAC and UMAC, for Python.

hashlib-compatible hash objects (``md5``, ``md5p``, ``new``) that work as
``digestmod`` for :mod:`hmac` and with :func:`hashlib.file_digest`; batch
APIs on the multi-buffer engine (``md5_many``, ``md5_many_offsets``, the
latter also on an NVIDIA GPU with ``device="cuda"``) and columns already in
GPU memory hashed in place (``md5_cuda``: CuPy, PyTorch, Numba); native
file hashing (``hash_file``, ``hash_files``, ``s3_etag``, ``s3_checksums``:
S3's ETag, CRC-64/NVME, CRC-32C, CRC-32, SHA-1, SHA-256); MACs (``hmac_md5``,
``HmacKey``, ``umac``) and ``compare_digest``. The GIL is released for
updates of 2 KiB or more and for every batch and file call.

MD5 is broken for collision resistance: anyone can make two inputs with the
same MD5. Use MD5 and MD5-P against accidental corruption and for formats
that require them; authenticate with a MAC (HMAC, UMAC).
"""

from __future__ import annotations

import errno
import os
from typing import IO, Dict, Iterable, Optional, Union

from ._linerate import (
    Hash,
    HmacKey,
    Umac,
    __version__,
    compare_digest,
    hash_files,
    hmac_md5,
    md5,
    md5_many,
    md5_cuda,
    md5_many_offsets,
    md5p,
    new,
    s3_checksums_many,
    s3_etag,
    umac,
)
from ._linerate import hash_file as _hash_path

__all__ = [
    "Hash",
    "HmacKey",
    "Umac",
    "algorithms_available",
    "compare_digest",
    "hash_file",
    "hash_files",
    "hmac_md5",
    "md5",
    "md5_cuda",
    "md5_many",
    "md5_many_offsets",
    "md5p",
    "new",
    "s3_checksums",
    "s3_checksums_many",
    "s3_etag",
    "umac",
]

#: Names ``new`` accepts: ``md5`` and ``md5pK`` for K a multiple of 4 from 4 to 256.
algorithms_available = frozenset(["md5"] + [f"md5p{k}" for k in range(4, 257, 4)])

_CHUNK = 1 << 20


def s3_checksums(
    path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"],
    algorithms: Iterable[str] = ("md5", "crc64nvme"),
    part_size: Optional[int] = None,
    type: Optional[str] = None,
    threads: Optional[int] = None,
    *,
    s3_limits: bool = True,
) -> Dict[str, str]:
    """S3's checksums of one file as S3 (HeadObject, GetObjectAttributes)
    and the AWS CLI show them, every part read once for all of them.

    ``algorithms``: an iterable of names (a lone ``str`` is a
    ``TypeError``), any of ``md5`` (the ETag, hex, ``-N`` for N parts),
    ``crc64nvme``, ``crc32c``, ``crc32``, ``sha1``, ``sha256`` (base64 of
    the value, big-endian for the CRCs; composite values ``-N``).
    ``part_size``: the upload's part size (default: the AWS CLI's, 8 MiB
    doubled while there would be more than 10,000 parts; files under
    8 MiB are one PUT). ``type``: ``"full-object"`` or ``"composite"`` for
    a multipart upload's checksums (default: full-object for crc64nvme,
    composite for the others, as S3 and the AWS CLI make them). Returns a
    dict from each algorithm's name to its value; compare
    ``s3_checksums(p, ["crc64nvme"])["crc64nvme"]`` with
    ``head_object(..., ChecksumMode="ENABLED")["ChecksumCRC64NVME"]``.

    S3 takes parts of 5 MiB to 5 GiB (the last may be smaller), at most
    10,000 of them: a file that ``part_size`` would split otherwise raises
    ``ValueError`` naming the rule, unread, rather than return a value S3
    never shows. ``s3_limits=False`` computes any part size (S3-compatible
    stores that take smaller parts), still at most 10,000 parts.

    The file must be a regular file (its size lays out the parts): a FIFO
    or device raises ``OSError`` ("not a regular file"). Files whose size
    the kernel makes up (``/proc``, ``/sys``) are read to their end and
    their parts cut as they stream past: as the AWS CLI lays out a file
    of that size, up to 10,000 parts of 8 MiB (78 GiB). Ctrl-C
    (``KeyboardInterrupt``) stops the call as it stops
    :func:`hashlib.file_digest`.
    """
    return s3_checksums_many(
        [path],
        algorithms=algorithms,
        part_size=part_size,
        type=type,
        threads=threads,
        s3_limits=s3_limits,
    )[0]


def hash_file(
    file: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", IO[bytes]],
    algo: str = "md5",
) -> bytes:
    """The digest of a file: a path (read natively, GIL released) or a
    binary file object opened for reading (read with ``readinto``).

    A path is opened as :func:`open` opens it (``ValueError`` for a NUL in
    it) and read to its end, whatever it is: a FIFO waits for its writer,
    a file in ``/proc`` or ``/sys`` (whose size the kernel makes up) is
    read as ``md5sum`` reads it. Ctrl-C (``KeyboardInterrupt``) stops the
    call, as it stops :func:`hashlib.file_digest`. A file object in
    non-blocking mode that has no data ready (``readinto`` returns
    ``None``) raises ``BlockingIOError``, as :func:`hashlib.file_digest`
    does, rather than take what was read so far for the whole file."""
    if hasattr(file, "readinto") or hasattr(file, "read"):
        h = new(algo)
        if hasattr(file, "readinto"):
            buf = bytearray(_CHUNK)
            view = memoryview(buf)
            while True:
                n = file.readinto(buf)
                if n is None:
                    raise _would_block()
                if not n:
                    break
                h.update(view[:n])
        else:
            while True:
                chunk = file.read(_CHUNK)
                if chunk is None:
                    raise _would_block()
                if not chunk:
                    break
                h.update(chunk)
        return h.digest()
    return _hash_path(file, algo)


def _would_block() -> BlockingIOError:
    return BlockingIOError(
        errno.EAGAIN,
        "hash_file: the file object is non-blocking and has no data ready; "
        "give a blocking one",
    )
