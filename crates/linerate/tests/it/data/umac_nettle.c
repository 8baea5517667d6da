/* Nettle's UMAC (nettle-dev, <nettle/umac.h>) as an oracle and an anchor
 * for linerate's tests and scripts/umac_vs_nettle.py.
 *
 * Build: cc -O2 -o umac_nettle umac_nettle.c -lnettle
 *
 * umac_nettle serve
 *   Reads one request per line from stdin and writes one tag per line
 *   (lowercase hex) to stdout, flushed:
 *     BYTES KEYHEX NONCEHEX MESSAGE [@OFFSET:HEX]...
 *   BYTES is the tag length (4, 8, 12, 16); MESSAGE is "hex:HEX" (HEX may
 *   be empty) or "rep:PATTERNHEX:LENGTH" (the pattern repeated and cut to
 *   LENGTH bytes); each "@OFFSET:HEX" then overwrites bytes from OFFSET on.
 *
 * umac_nettle bench BYTES SIZE MESSAGES
 *   Tags MESSAGES messages of SIZE bytes (starting on a 64-byte boundary)
 *   under one key with sequential 8-byte nonces (Nettle increments the
 *   nonce itself) and prints
 *   "nettle BYTES SIZE NS_PER_MESSAGE", then times key setup and prints
 *   "nettle-setup BYTES NS_PER_KEY".
 */
#include <nettle/umac.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

union ctx {
  struct umac32_ctx u32;
  struct umac64_ctx u64;
  struct umac96_ctx u96;
  struct umac128_ctx u128;
};

static void set_key (union ctx *c, int bytes, const uint8_t *key)
{
  switch (bytes)
    {
    case 4: umac32_set_key (&c->u32, key); break;
    case 8: umac64_set_key (&c->u64, key); break;
    case 12: umac96_set_key (&c->u96, key); break;
    default: umac128_set_key (&c->u128, key); break;
    }
}

static void set_nonce (union ctx *c, int bytes, size_t n, const uint8_t *nonce)
{
  switch (bytes)
    {
    case 4: umac32_set_nonce (&c->u32, n, nonce); break;
    case 8: umac64_set_nonce (&c->u64, n, nonce); break;
    case 12: umac96_set_nonce (&c->u96, n, nonce); break;
    default: umac128_set_nonce (&c->u128, n, nonce); break;
    }
}

static void update (union ctx *c, int bytes, size_t n, const uint8_t *data)
{
  switch (bytes)
    {
    case 4: umac32_update (&c->u32, n, data); break;
    case 8: umac64_update (&c->u64, n, data); break;
    case 12: umac96_update (&c->u96, n, data); break;
    default: umac128_update (&c->u128, n, data); break;
    }
}

static void digest (union ctx *c, int bytes, uint8_t *tag)
{
  switch (bytes)
    {
    case 4: umac32_digest (&c->u32, 4, tag); break;
    case 8: umac64_digest (&c->u64, 8, tag); break;
    case 12: umac96_digest (&c->u96, 12, tag); break;
    default: umac128_digest (&c->u128, 16, tag); break;
    }
}

static int nibble (int ch)
{
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  fprintf (stderr, "umac_nettle: bad hex digit %c\n", ch);
  exit (2);
}

/* Decodes HEX (up to a NUL or ':') into out; returns the byte count. */
static size_t unhex (const char *hex, uint8_t *out)
{
  size_t n = 0;
  while (hex[0] && hex[0] != ':')
    {
      if (!hex[1]) { fprintf (stderr, "umac_nettle: odd hex\n"); exit (2); }
      out[n++] = (uint8_t) (nibble (hex[0]) << 4 | nibble (hex[1]));
      hex += 2;
    }
  return n;
}

static int serve (void)
{
  size_t cap = 0;
  char *line = NULL;
  ssize_t got;
  while ((got = getline (&line, &cap, stdin)) > 0)
    {
      if (line[got - 1] == '\n') line[got - 1] = 0;
      char *save = NULL;
      char *t_bytes = strtok_r (line, " ", &save);
      char *t_key = strtok_r (NULL, " ", &save);
      char *t_nonce = strtok_r (NULL, " ", &save);
      char *t_msg = strtok_r (NULL, " ", &save);
      if (!t_msg) { fprintf (stderr, "umac_nettle: short request\n"); return 2; }
      int bytes = atoi (t_bytes);
      uint8_t key[16], nonce[16];
      if (unhex (t_key, key) != 16) { fprintf (stderr, "umac_nettle: key\n"); return 2; }
      size_t nonce_len = strlen (t_nonce) / 2;
      if (nonce_len < 1 || nonce_len > 16) { fprintf (stderr, "umac_nettle: nonce\n"); return 2; }
      unhex (t_nonce, nonce);

      uint8_t *msg;
      size_t len;
      if (strncmp (t_msg, "hex:", 4) == 0)
        {
          msg = malloc (strlen (t_msg) / 2 + 1);
          len = unhex (t_msg + 4, msg);
        }
      else if (strncmp (t_msg, "rep:", 4) == 0)
        {
          uint8_t pattern[256];
          size_t plen = unhex (t_msg + 4, pattern);
          const char *colon = strchr (t_msg + 4, ':');
          if (!colon || plen == 0) { fprintf (stderr, "umac_nettle: rep\n"); return 2; }
          len = strtoull (colon + 1, NULL, 10);
          msg = malloc (len + 1);
          for (size_t i = 0; i < len; i++) msg[i] = pattern[i % plen];
        }
      else { fprintf (stderr, "umac_nettle: message kind\n"); return 2; }

      char *patch;
      while ((patch = strtok_r (NULL, " ", &save)))
        {
          if (patch[0] != '@') { fprintf (stderr, "umac_nettle: patch\n"); return 2; }
          size_t at = strtoull (patch + 1, NULL, 10);
          const char *colon = strchr (patch, ':');
          uint8_t *tmp = malloc (strlen (patch) / 2 + 1);
          size_t n = unhex (colon + 1, tmp);
          if (at + n > len) { fprintf (stderr, "umac_nettle: patch range\n"); return 2; }
          memcpy (msg + at, tmp, n);
          free (tmp);
        }

      union ctx c;
      uint8_t tag[16];
      set_key (&c, bytes, key);
      set_nonce (&c, bytes, nonce_len, nonce);
      update (&c, bytes, len, msg);
      digest (&c, bytes, tag);
      for (int i = 0; i < bytes; i++) printf ("%02x", tag[i]);
      printf ("\n");
      fflush (stdout);
      free (msg);
    }
  free (line);
  return 0;
}

static double now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int bench (int bytes, size_t size, long messages)
{
  uint8_t key[16] = "abcdefghijklmnop";
  /* 64-byte aligned, like linerate's trial: the allocator's choice should
     not decide the comparison. */
  uint8_t *msg = aligned_alloc (64, (size + 64) / 64 * 64);
  for (size_t i = 0; i < size; i++) msg[i] = (uint8_t) (i * 7 + 3);
  union ctx c;
  uint8_t tag[16], sink = 0;
  set_key (&c, bytes, key);
  uint8_t nonce[8] = {0};
  set_nonce (&c, bytes, sizeof nonce, nonce);
  /* Warm up: caches, clock. */
  for (long i = 0; i < messages / 10 + 1; i++)
    {
      update (&c, bytes, size, msg);
      digest (&c, bytes, tag);
      sink ^= tag[0];
    }
  double t0 = now_ns ();
  for (long i = 0; i < messages; i++)
    {
      update (&c, bytes, size, msg);
      digest (&c, bytes, tag);
      sink ^= tag[0];
    }
  double t1 = now_ns ();
  printf ("nettle %d %zu %.3f\n", bytes, size, (t1 - t0) / messages);

  long keys = 20000;
  t0 = now_ns ();
  for (long i = 0; i < keys; i++)
    {
      key[0] = (uint8_t) i;
      set_key (&c, bytes, key);
      sink ^= ((uint8_t *) &c)[i % sizeof c];
    }
  t1 = now_ns ();
  printf ("nettle-setup %d %.3f\n", bytes, (t1 - t0) / keys);
  free (msg);
  return sink == 0x5a ? 0 : 0;
}

int main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "serve") == 0)
    return serve ();
  if (argc == 5 && strcmp (argv[1], "bench") == 0)
    return bench (atoi (argv[2]), strtoull (argv[3], NULL, 10), atol (argv[4]));
  fprintf (stderr, "usage: umac_nettle serve | umac_nettle bench BYTES SIZE MESSAGES\n");
  return 2;
}
