// CUDA's built-ins for compiling ../kernels.cu on the CPU (emu.cpp), with
// the semantics the CUDA C++ Programming Guide gives them.
#include <stdint.h>
#include <string.h>
#define __device__
#define __forceinline__ inline
#define __global__

struct uint4 {
    unsigned x, y, z, w;
};
struct dim3 {
    unsigned x;
};
static dim3 blockIdx, blockDim, threadIdx;

// A read-only load (alignment aside, a plain load).
template <typename T>
static inline T __ldg(const T* p) {
    T v;
    memcpy(&v, p, sizeof(T));
    return v;
}

// hi:lo shifted left by s mod 32, the high word.
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    uint64_t v = ((uint64_t)hi << 32) | lo;
    return (unsigned)((v << (s & 31)) >> 32);
}

// hi:lo shifted right by s mod 32, the low word.
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    uint64_t v = ((uint64_t)hi << 32) | lo;
    return (unsigned)(v >> (s & 31));
}

static inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    unsigned long long old = *p;
    if (v < old) *p = v;
    return old;
}
