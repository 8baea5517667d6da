// linerate's MD5 kernels for NVIDIA GPUs.
//
// Built to PTX by scripts/gen_ptx.py (NVRTC, virtual architecture
// compute_75, so that any driver from CUDA 12.8 on can JIT it for its
// chip); kernels.ptx beside this file is that output, and records the
// SHA-256 of this source so a test can tell when it is stale.
//
// One thread hashes one message (a row, a file, an S3 part, an MD5-P
// chain): MD5 is a chain of dependent steps, so a GPU's parallelism comes
// from many messages, never from one. Every kernel keeps its state in
// registers, reads each block once with the widest loads the alignment
// allows, and writes the chaining value back little-endian.

typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned char u8;

#define ROTL(x, s) __funnelshift_l((x), (x), (s))
#define F(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define G(b, c, d) ((c) ^ ((d) & ((b) ^ (c))))
#define H(b, c, d) ((b) ^ (c) ^ (d))
#define I(b, c, d) ((c) ^ ((b) | ~(d)))
#define STEP(f, a, b, c, d, m, k, s) a = (b) + ROTL((a) + f((b), (c), (d)) + (m) + (k), (s))

// RFC 1321's compression of one block: 64 steps, all indices constant so
// that m[] stays in registers.
__device__ __forceinline__ void compress(u32 st[4], const u32 m[16]) {
    u32 a = st[0], b = st[1], c = st[2], d = st[3];
    STEP(F, a, b, c, d, m[0], 0xd76aa478u, 7);
    STEP(F, d, a, b, c, m[1], 0xe8c7b756u, 12);
    STEP(F, c, d, a, b, m[2], 0x242070dbu, 17);
    STEP(F, b, c, d, a, m[3], 0xc1bdceeeu, 22);
    STEP(F, a, b, c, d, m[4], 0xf57c0fafu, 7);
    STEP(F, d, a, b, c, m[5], 0x4787c62au, 12);
    STEP(F, c, d, a, b, m[6], 0xa8304613u, 17);
    STEP(F, b, c, d, a, m[7], 0xfd469501u, 22);
    STEP(F, a, b, c, d, m[8], 0x698098d8u, 7);
    STEP(F, d, a, b, c, m[9], 0x8b44f7afu, 12);
    STEP(F, c, d, a, b, m[10], 0xffff5bb1u, 17);
    STEP(F, b, c, d, a, m[11], 0x895cd7beu, 22);
    STEP(F, a, b, c, d, m[12], 0x6b901122u, 7);
    STEP(F, d, a, b, c, m[13], 0xfd987193u, 12);
    STEP(F, c, d, a, b, m[14], 0xa679438eu, 17);
    STEP(F, b, c, d, a, m[15], 0x49b40821u, 22);
    STEP(G, a, b, c, d, m[1], 0xf61e2562u, 5);
    STEP(G, d, a, b, c, m[6], 0xc040b340u, 9);
    STEP(G, c, d, a, b, m[11], 0x265e5a51u, 14);
    STEP(G, b, c, d, a, m[0], 0xe9b6c7aau, 20);
    STEP(G, a, b, c, d, m[5], 0xd62f105du, 5);
    STEP(G, d, a, b, c, m[10], 0x02441453u, 9);
    STEP(G, c, d, a, b, m[15], 0xd8a1e681u, 14);
    STEP(G, b, c, d, a, m[4], 0xe7d3fbc8u, 20);
    STEP(G, a, b, c, d, m[9], 0x21e1cde6u, 5);
    STEP(G, d, a, b, c, m[14], 0xc33707d6u, 9);
    STEP(G, c, d, a, b, m[3], 0xf4d50d87u, 14);
    STEP(G, b, c, d, a, m[8], 0x455a14edu, 20);
    STEP(G, a, b, c, d, m[13], 0xa9e3e905u, 5);
    STEP(G, d, a, b, c, m[2], 0xfcefa3f8u, 9);
    STEP(G, c, d, a, b, m[7], 0x676f02d9u, 14);
    STEP(G, b, c, d, a, m[12], 0x8d2a4c8au, 20);
    STEP(H, a, b, c, d, m[5], 0xfffa3942u, 4);
    STEP(H, d, a, b, c, m[8], 0x8771f681u, 11);
    STEP(H, c, d, a, b, m[11], 0x6d9d6122u, 16);
    STEP(H, b, c, d, a, m[14], 0xfde5380cu, 23);
    STEP(H, a, b, c, d, m[1], 0xa4beea44u, 4);
    STEP(H, d, a, b, c, m[4], 0x4bdecfa9u, 11);
    STEP(H, c, d, a, b, m[7], 0xf6bb4b60u, 16);
    STEP(H, b, c, d, a, m[10], 0xbebfbc70u, 23);
    STEP(H, a, b, c, d, m[13], 0x289b7ec6u, 4);
    STEP(H, d, a, b, c, m[0], 0xeaa127fau, 11);
    STEP(H, c, d, a, b, m[3], 0xd4ef3085u, 16);
    STEP(H, b, c, d, a, m[6], 0x04881d05u, 23);
    STEP(H, a, b, c, d, m[9], 0xd9d4d039u, 4);
    STEP(H, d, a, b, c, m[12], 0xe6db99e5u, 11);
    STEP(H, c, d, a, b, m[15], 0x1fa27cf8u, 16);
    STEP(H, b, c, d, a, m[2], 0xc4ac5665u, 23);
    STEP(I, a, b, c, d, m[0], 0xf4292244u, 6);
    STEP(I, d, a, b, c, m[7], 0x432aff97u, 10);
    STEP(I, c, d, a, b, m[14], 0xab9423a7u, 15);
    STEP(I, b, c, d, a, m[5], 0xfc93a039u, 21);
    STEP(I, a, b, c, d, m[12], 0x655b59c3u, 6);
    STEP(I, d, a, b, c, m[3], 0x8f0ccc92u, 10);
    STEP(I, c, d, a, b, m[10], 0xffeff47du, 15);
    STEP(I, b, c, d, a, m[1], 0x85845dd1u, 21);
    STEP(I, a, b, c, d, m[8], 0x6fa87e4fu, 6);
    STEP(I, d, a, b, c, m[15], 0xfe2ce6e0u, 10);
    STEP(I, c, d, a, b, m[6], 0xa3014314u, 15);
    STEP(I, b, c, d, a, m[13], 0x4e0811a1u, 21);
    STEP(I, a, b, c, d, m[4], 0xf7537e82u, 6);
    STEP(I, d, a, b, c, m[11], 0xbd3af235u, 10);
    STEP(I, c, d, a, b, m[2], 0x2ad7d2bbu, 15);
    STEP(I, b, c, d, a, m[9], 0xeb86d391u, 21);
    st[0] += a;
    st[1] += b;
    st[2] += c;
    st[3] += d;
}

// One whole block at p, whatever its alignment. The unaligned form reads
// the 17 aligned words that hold the block's bytes: each holds at least
// one of them, so no load leaves the buffer's last 4-byte granule.
__device__ __forceinline__ void load_block(const u8* p, u32 m[16]) {
    u64 addr = (u64)p;
    if ((addr & 15) == 0) {
        const uint4* q = (const uint4*)p;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            uint4 v = __ldg(q + i);
            m[4 * i] = v.x;
            m[4 * i + 1] = v.y;
            m[4 * i + 2] = v.z;
            m[4 * i + 3] = v.w;
        }
    } else if ((addr & 3) == 0) {
        const u32* q = (const u32*)p;
#pragma unroll
        for (int i = 0; i < 16; i++) m[i] = __ldg(q + i);
    } else {
        const u32* q = (const u32*)(addr & ~(u64)3);
        u32 shift = (u32)(addr & 3) * 8;
        u32 lo = __ldg(q);
#pragma unroll
        for (int i = 0; i < 16; i++) {
            u32 hi = __ldg(q + i + 1);
            m[i] = __funnelshift_r(lo, hi, shift);
            lo = hi;
        }
    }
}

// The last block(s) of a message: `rest` (< 64) bytes at p, then 0x80,
// zeros and the length in bits. Loads only the aligned words that hold one
// of the `rest` bytes, so a message ending at its buffer's end reads
// nothing past it.
__device__ __forceinline__ void finish(u32 st[4], const u8* p, u32 rest, u64 total) {
    u32 m[16];
    u64 addr = (u64)p;
    const u32* q = (const u32*)(addr & ~(u64)3);
    u32 shift = (u32)(addr & 3) * 8;
    u32 words = (shift / 8 + rest + 3) / 4;  // aligned words holding the rest
    u32 lo = words > 0 ? __ldg(q) : 0;
#pragma unroll
    for (int i = 0; i < 16; i++) {
        u32 hi = (u32)(i + 1) < words ? __ldg(q + i + 1) : 0;
        u32 w = __funnelshift_r(lo, hi, shift);
        lo = hi;
        // bytes of this word that belong to the message, then 0x80
        int have = (int)rest - 4 * i;
        if (have >= 4) {
            m[i] = w;
        } else if (have >= 0) {
            u32 keep = have == 0 ? 0u : (0xffffffffu >> (32 - 8 * have));
            m[i] = (w & keep) | (0x80u << (8 * have));
        } else {
            m[i] = 0;
        }
    }
    u64 bits = total * 8;
    if (rest >= 56) {
        compress(st, m);
#pragma unroll
        for (int i = 0; i < 16; i++) m[i] = 0;
    }
    m[14] = (u32)bits;
    m[15] = (u32)(bits >> 32);
    compress(st, m);
}

__device__ __forceinline__ void init(u32 st[4]) {
    st[0] = 0x67452301u;
    st[1] = 0xefcdab89u;
    st[2] = 0x98badcfeu;
    st[3] = 0x10325476u;
}

__device__ __forceinline__ void store_digest(u32* out, const u32 st[4]) {
    uint4 v;
    v.x = st[0];
    v.y = st[1];
    v.z = st[2];
    v.w = st[3];
    *(uint4*)out = v;
}

template <typename Off>
__device__ __forceinline__ void md5_row(const u8* data, const Off* offsets, u64 n, u32* digests) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u64 start = (u64)offsets[i];
    u64 len = (u64)offsets[i + 1] - start;
    const u8* p = data + start;
    u32 st[4];
    init(st);
    u64 blocks = len / 64;
    for (u64 b = 0; b < blocks; b++) {
        u32 m[16];
        load_block(p + b * 64, m);
        compress(st, m);
    }
    finish(st, p + blocks * 64, (u32)(len % 64), len);
    store_digest(digests + 4 * i, st);
}

// MD5 of each of n rows: row i is data[offsets[i] .. offsets[i + 1]]
// (Arrow's binary layout), its digest goes to digests[4 i .. 4 i + 4].
extern "C" __global__ void md5_rows64(const u8* data, const u64* offsets, u64 n, u32* digests) {
    md5_row<u64>(data, offsets, n, digests);
}

// The same with 32-bit offsets (Arrow's binary/utf8, cuDF's strings).
extern "C" __global__ void md5_rows32(const u8* data, const int* offsets, u64 n, u32* digests) {
    md5_row<int>(data, offsets, n, digests);
}

// Whole blocks into n running MD5 states, no padding (the host pads):
// stream s absorbs blocks[s] blocks, its j-th at data + starts[s] +
// j * stride, starting from MD5's initial value where fresh[s] is set and
// from states[s] otherwise. One kernel carries S3 parts and files streamed
// in slices (stride 64, a slice per stream per launch) and MD5-P/K's chains
// (chain k starts at block k of a stripe and strides K * 64 bytes).
extern "C" __global__ void md5_update(const u8* data, const u64* starts, u64 stride,
                                      const u64* blocks, const u8* fresh, u64 n, u32* states) {
    u64 s = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    u32 st[4];
    if (fresh[s]) {
        init(st);
    } else {
        uint4 v = *(const uint4*)(states + 4 * s);
        st[0] = v.x;
        st[1] = v.y;
        st[2] = v.z;
        st[3] = v.w;
    }
    const u8* p = data + starts[s];
    u64 count = blocks[s];
    for (u64 b = 0; b < count; b++) {
        u32 m[16];
        load_block(p + b * stride, m);
        compress(st, m);
    }
    store_digest(states + 4 * s, st);
}

// Offsets that rows can be read by: offsets[0] >= 0, never decreasing,
// offsets[n] <= len. The least bad index goes to *bad (left alone when all
// are good), so that a wrong column is an error, not a read out of bounds.
template <typename Off>
__device__ __forceinline__ void check(const Off* offsets, u64 n, u64 len, u64* bad) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long a = (long long)offsets[i];
    long long b = (long long)offsets[i + 1];
    if (a < 0 || b < a || (unsigned long long)b > len) atomicMin(bad, i);
}

extern "C" __global__ void check_offsets64(const u64* offsets, u64 n, u64 len, u64* bad) {
    check<u64>(offsets, n, len, bad);
}

extern "C" __global__ void check_offsets32(const int* offsets, u64 n, u64 len, u64* bad) {
    check<int>(offsets, n, len, bad);
}

// The integer-ALU bound: `iters` compressions per thread on registers, the
// message words changed by the state after each so that nothing is hoisted
// out of the loop. Nothing is read from memory; one word per thread is
// written so that the work is not optimised away.
extern "C" __global__ void md5_alu(u32 iters, u32* sink) {
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 st[4];
    init(st);
    u32 m[16];
#pragma unroll
    for (int i = 0; i < 16; i++) m[i] = t * 0x9e3779b9u + i;
    for (u32 k = 0; k < iters; k++) {
        compress(st, m);
#pragma unroll
        for (int i = 0; i < 16; i++) m[i] += st[i & 3];
    }
    sink[t] = st[0] ^ st[1] ^ st[2] ^ st[3];
}
