"""Pure-Python MD5 compression function (RFC 1321), used to check md5_iter
block by block.  Cross-checked against hashlib in the tests themselves."""
import math
import struct

K = [int(abs(math.sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)]
S = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
IV = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)
M32 = 0xFFFFFFFF


def _rotl(x, s):
    return ((x << s) | (x >> (32 - s))) & M32


def compress(cv, words):
    """cv: (a, b, c, d); words: 16 little-endian message words."""
    a, b, c, d = cv
    for i in range(64):
        r = i // 16
        if r == 0:
            f, g = (b & c) | (~b & d), i
        elif r == 1:
            f, g = (b & d) | (c & ~d), (5 * i + 1) % 16
        elif r == 2:
            f, g = b ^ c ^ d, (3 * i + 5) % 16
        else:
            f, g = c ^ (b | (~d & M32)), (7 * i) % 16
        t = (a + (f & M32) + K[i] + words[g]) & M32
        a, d, c, b = d, c, b, (b + _rotl(t, S[i])) & M32
    return tuple((x + y) & M32 for x, y in zip(cv, (a, b, c, d)))


def pad(msg):
    n = len(msg)
    return msg + b"\x80" + b"\x00" * ((55 - n) % 64) + struct.pack("<Q", (8 * n) & (2**64 - 1))


def md5(msg):
    p = pad(msg)
    cv = IV
    for off in range(0, len(p), 64):
        cv = compress(cv, struct.unpack("<16I", p[off:off + 64]))
    return struct.pack("<4I", *cv)


def pack_words(words):
    """16 words -> 512-bit integer, word j at bits [32j+31:32j]."""
    v = 0
    for j, w in enumerate(words):
        v |= w << (32 * j)
    return v


def pack_cv(cv):
    return cv[0] | cv[1] << 32 | cv[2] << 64 | cv[3] << 96


def unpack_cv(v):
    return tuple((v >> (32 * j)) & M32 for j in range(4))
