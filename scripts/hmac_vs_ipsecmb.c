/*
 * The anchor for multi-buffer HMAC-MD5: Intel's libipsec-mb (Debian's
 * libipsec-mb-dev) on batches of 1500-byte packets, one key, precomputed
 * ipad/opad states, the hash-only job API (cipher NULL), the manager's
 * fastest architecture (init_mb_mgr_auto; AVX-512 where the CPU has it).
 *
 * Built and run by scripts/hmac_vs_ipsecmb.sh:
 *   hmac_vs_ipsecmb SECONDS [PACKETS_PER_BATCH]
 * prints "ipsec-mb packets/s N tag0 HEX arch NAME" where tag0 is the full
 * 16-byte HMAC-MD5 tag of the first packet (the script checks it against
 * Python's hmac). The key is 16 bytes of 0x0b; packet byte i of the batch
 * buffer is (i * 31 + 7) mod 256, as in crates/linerate/benches/hmac.rs.
 */
#include <intel-ipsec-mb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PACKET 1500

static double now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(IMB_JOB *job)
{
        if (job != NULL && job->status != IMB_STATUS_COMPLETED) {
                fprintf(stderr, "job failed: status %d\n", (int)job->status);
                exit(1);
        }
}

int main(int argc, char **argv)
{
        double seconds = argc > 1 ? atof(argv[1]) : 1.0;
        size_t count = argc > 2 ? (size_t)atol(argv[2]) : 1024;
        uint8_t *buf = malloc(count * PACKET);
        uint8_t *tags = calloc(count, 16);
        uint8_t key[64] = {0}, block[64];
        uint8_t ipad_state[16] __attribute__((aligned(16)));
        uint8_t opad_state[16] __attribute__((aligned(16)));
        IMB_ARCH arch = IMB_ARCH_NONE;
        static const char *arch_names[] = {"none", "noaesni", "sse", "avx", "avx2", "avx512"};
        IMB_MGR *mgr = alloc_mb_mgr(0);
        size_t i;

        if (buf == NULL || tags == NULL || mgr == NULL) {
                fprintf(stderr, "out of memory\n");
                return 1;
        }
        init_mb_mgr_auto(mgr, &arch);
        for (i = 0; i < count * PACKET; i++)
                buf[i] = (uint8_t)(i * 31 + 7);
        memset(key, 0x0b, 16);
        for (i = 0; i < 64; i++)
                block[i] = key[i] ^ 0x36;
        IMB_MD5_ONE_BLOCK(mgr, block, ipad_state);
        for (i = 0; i < 64; i++)
                block[i] = key[i] ^ 0x5c;
        IMB_MD5_ONE_BLOCK(mgr, block, opad_state);

        double start = now(), elapsed;
        uint64_t packets = 0;
        do {
                for (i = 0; i < count; i++) {
                        IMB_JOB *job = IMB_GET_NEXT_JOB(mgr);
                        memset(job, 0, sizeof(*job));
                        job->cipher_mode = IMB_CIPHER_NULL;
                        job->cipher_direction = IMB_DIR_ENCRYPT;
                        job->chain_order = IMB_ORDER_HASH_CIPHER;
                        job->hash_alg = IMB_AUTH_MD5;
                        job->src = buf + i * PACKET;
                        job->dst = buf + i * PACKET;
                        job->hash_start_src_offset_in_bytes = 0;
                        job->msg_len_to_hash_in_bytes = PACKET;
                        job->auth_tag_output = tags + 16 * i;
                        job->auth_tag_output_len_in_bytes = 16;
                        job->u.HMAC._hashed_auth_key_xor_ipad = ipad_state;
                        job->u.HMAC._hashed_auth_key_xor_opad = opad_state;
                        job = IMB_SUBMIT_JOB(mgr);
                        while (job != NULL) {
                                check(job);
                                job = IMB_GET_COMPLETED_JOB(mgr);
                        }
                }
                IMB_JOB *job;
                while ((job = IMB_FLUSH_JOB(mgr)) != NULL)
                        check(job);
                packets += count;
                elapsed = now() - start;
        } while (elapsed < seconds);

        printf("ipsec-mb packets/s %.0f tag0 ", packets / elapsed);
        for (i = 0; i < 16; i++)
                printf("%02x", tags[i]);
        printf(" arch %s version %s\n",
               (unsigned)arch < sizeof(arch_names) / sizeof(arch_names[0]) ? arch_names[arch] : "?",
               imb_get_version_str());
        free_mb_mgr(mgr);
        free(buf);
        free(tags);
        return 0;
}
