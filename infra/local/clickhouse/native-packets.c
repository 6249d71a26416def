/*
 * The native protocol's encoding as far as the front needs it: VarUInt and String, the client's
 * Hello (read) and the server's Exception packet (written). See native-front.c for why.
 */
#include <stdio.h>
#include <string.h>

#include "native-packets.h"

/* VarUInt and String readers over a buffer; 0 = need more bytes, -1 = malformed. */
static int read_varuint(const unsigned char *buf, size_t len, size_t *at, uint64_t *value) {
  *value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*at >= len) return 0;
    unsigned char byte = buf[(*at)++];
    *value |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return 1;
  }
  return -1;
}

static int read_string(const unsigned char *buf, size_t len, size_t *at, char *out, size_t cap) {
  uint64_t size;
  int state = read_varuint(buf, len, at, &size);
  if (state <= 0) return state;
  if (size >= cap) return -1;
  if (*at + size > len) return 0;
  if (out) {
    memcpy(out, buf + *at, size);
    out[size] = '\0';
    if (strlen(out) != size) return -1; /* a NUL inside: not a name or password we can check */
  }
  *at += size;
  return 1;
}

/* ClientHello: packet 0, client name, major, minor, protocol revision, database, user, password. */
int parse_hello(const unsigned char *buf, size_t len, struct hello *hello) {
  size_t at = 0;
  uint64_t number;
  int state;
  if ((state = read_varuint(buf, len, &at, &number)) <= 0) return state;
  if (number != 0) return -1;
  if ((state = read_string(buf, len, &at, NULL, 16384)) <= 0) return state;
  for (int i = 0; i < 3; i++)
    if ((state = read_varuint(buf, len, &at, &number)) <= 0) return state;
  if ((state = read_string(buf, len, &at, hello->database, sizeof hello->database)) <= 0) return state;
  if ((state = read_string(buf, len, &at, hello->user, sizeof hello->user)) <= 0) return state;
  if ((state = read_string(buf, len, &at, hello->password, sizeof hello->password)) <= 0) return state;
  return at == len ? 1 : -1; /* nothing may follow before the server's answer */
}

static void put_varuint(unsigned char *out, size_t *at, uint64_t value) {
  do {
    unsigned char byte = value & 0x7f;
    value >>= 7;
    if (value) byte |= 0x80;
    out[(*at)++] = byte;
  } while (value);
}

static void put_string(unsigned char *out, size_t *at, const char *text) {
  size_t size = strlen(text);
  put_varuint(out, at, size);
  memcpy(out + *at, text, size);
  *at += size;
}

size_t exception_packet(unsigned char *out, int32_t code, const char *message) {
  char text[4096];
  snprintf(text, sizeof text, "%s", message);
  size_t at = 0;
  put_varuint(out, &at, 2);
  uint32_t le = (uint32_t)code;
  for (int i = 0; i < 4; i++) out[at++] = (le >> (8 * i)) & 0xff;
  put_string(out, &at, "DB::Exception");
  put_string(out, &at, text);
  put_string(out, &at, "");
  out[at++] = 0;
  return at;
}
