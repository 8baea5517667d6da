// The CUDA kernels of ../kernels.cu compiled for the CPU, one "thread" at a
// time, so that their logic (padding, alignment, tails, offsets) is tested
// on machines without a GPU (python/tests/test_gpu_kernels_on_host.py).
// shim.h stands in for CUDA's built-ins with the same semantics.
#include "shim.h"
#include KERNELS

static void each(unsigned long long n, void (*f)(unsigned long long, void*), void* ctx) {
    blockDim.x = 1;
    threadIdx.x = 0;
    for (unsigned long long i = 0; i < n; i++) {
        blockIdx.x = (unsigned)i;
        f(i, ctx);
    }
}

struct Rows64 { const u8* d; const u64* o; u64 n; u32* out; };
struct Rows32 { const u8* d; const int* o; u64 n; u32* out; };
struct Update { const u8* d; const u64* starts; u64 stride; const u64* blocks; const u8* fresh; u64 n; u32* st; };
struct Check64 { const u64* o; u64 n; u64 len; u64* bad; };

extern "C" void run_rows64(const u8* d, const u64* o, u64 n, u32* out) {
    Rows64 a{d, o, n, out};
    each(n, [](unsigned long long, void* p) { auto* a = (Rows64*)p; md5_rows64(a->d, a->o, a->n, a->out); }, &a);
}
extern "C" void run_rows32(const u8* d, const int* o, u64 n, u32* out) {
    Rows32 a{d, o, n, out};
    each(n, [](unsigned long long, void* p) { auto* a = (Rows32*)p; md5_rows32(a->d, a->o, a->n, a->out); }, &a);
}
extern "C" void run_update(const u8* d, const u64* starts, u64 stride, const u64* blocks, const u8* fresh, u64 n, u32* st) {
    Update a{d, starts, stride, blocks, fresh, n, st};
    each(n, [](unsigned long long, void* p) { auto* a = (Update*)p; md5_update(a->d, a->starts, a->stride, a->blocks, a->fresh, a->n, a->st); }, &a);
}
extern "C" void run_check64(const u64* o, u64 n, u64 len, u64* bad) {
    Check64 a{o, n, len, bad};
    each(n, [](unsigned long long, void* p) { auto* a = (Check64*)p; check_offsets64(a->o, a->n, a->len, a->bad); }, &a);
}
