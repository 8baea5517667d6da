#!/usr/bin/env python3
"""Reference S3 ETags, from Python's hashlib only (no linerate code).

    python3 scripts/etag_reference.py [--part-size BYTES] [--threshold BYTES]
                                      [--single] FILE...

Prints `ETAG  NAME` per FILE, as `linerate etag` does (names with a
backslash, newline or carriage return escaped md5sum's way). `-` reads
standard input. Sizes are plain numbers of bytes.

The ETag of an object uploaded with one PUT is its MD5. For a multipart
upload of N parts it is the MD5 of the N parts' binary MD5 digests,
concatenated, followed by `-N`. Which parts, by default, follows the AWS
CLI (s3transfer): a file below the multipart threshold (8 MiB) is one PUT;
otherwise parts of the chunk size (8 MiB), doubled while there would be
more than 10,000 parts, kept within 5 MiB..5 GiB. With --part-size every
file is multipart with that size unless --threshold says otherwise; an
empty file is then one empty part. Standard input is read to its end
first, and split as a stream of unknown size is (no doubling).
"""

import argparse
import hashlib
import io
import sys

MIB = 1 << 20
AWS_THRESHOLD = 8 * MIB
AWS_CHUNK = 8 * MIB
MAX_PARTS = 10_000
MIN_PART = 5 * MIB
MAX_PART = 5 << 30
READ = 1 << 20


def aws_part_size(size):
    """s3transfer's ChunksizeAdjuster: double for max parts, then clamp."""
    chunk = AWS_CHUNK
    while -(-size // chunk) > MAX_PARTS:
        chunk *= 2
    return min(max(chunk, MIN_PART), MAX_PART)


def md5_of_range(f, length):
    """MD5 of the next `length` bytes of the open file `f`."""
    h = hashlib.md5()
    left = length
    while left:
        block = f.read(min(left, READ))
        if not block:
            raise OSError("file shrank while being read")
        h.update(block)
        left -= len(block)
    return h.digest()


def etag(f, size, part_size, threshold, single):
    """The ETag of the `size` bytes of `f` from its current position."""
    if single or size < threshold:
        return md5_of_range(f, size).hex()
    if part_size is None:
        part_size = aws_part_size(size)
    parts = max(1, -(-size // part_size))
    digests = b""
    for i in range(parts):
        digests += md5_of_range(f, min(part_size, size - i * part_size))
    return f"{hashlib.md5(digests).hexdigest()}-{parts}"


def line(tag, name):
    """`ETAG  NAME`, escaped as md5sum escapes names."""
    if any(c in name for c in "\\\n\r"):
        escaped = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
        return f"\\{tag}  {escaped}"
    return f"{tag}  {name}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part-size", type=int, default=None)
    p.add_argument("--threshold", type=int, default=None)
    p.add_argument("--single", action="store_true")
    p.add_argument("files", nargs="*", default=["-"])
    a = p.parse_args()
    if a.threshold is not None:
        threshold = a.threshold
    elif a.part_size is not None:
        threshold = 0
    else:
        threshold = AWS_THRESHOLD
    out = sys.stdout.buffer
    status = 0
    for name in a.files:
        try:
            if name == "-":
                data = sys.stdin.buffer.read()
                # A stream's size is unknown to the uploader: no doubling.
                part_size = a.part_size if a.part_size is not None else AWS_CHUNK
                tag = etag(io.BytesIO(data), len(data), part_size, threshold, a.single)
            else:
                with open(name, "rb") as f:
                    f.seek(0, 2)
                    size = f.tell()
                    f.seek(0)
                    tag = etag(f, size, a.part_size, threshold, a.single)
        except OSError as e:
            print(f"etag_reference.py: {name}: {e.strerror or e}", file=sys.stderr)
            status = 1
            continue
        out.write(line(tag, name).encode("utf-8", "surrogateescape") + b"\n")
    sys.exit(status)


if __name__ == "__main__":
    main()
