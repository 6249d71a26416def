/* The few packets of ClickHouse's native protocol the front reads and writes (native-packets.c). */
#include <stddef.h>
#include <stdint.h>

struct hello {
  char user[256];
  char password[1024];
  char database[256];
};

/* Parses a ClientHello from the bytes received so far: 1 = whole (and nothing after it), 0 = need
 * more bytes, -1 = malformed or not a Hello. */
int parse_hello(const unsigned char *buf, size_t len, struct hello *hello);

/* Writes an Exception packet (code, name, message, empty stack trace, no nested exception) into
 * `out` (at least 4,200 bytes; the message is cut at 4,095) and returns its size. */
size_t exception_packet(unsigned char *out, int32_t code, const char *message);

#define EXCEPTION_PACKET_MAX (4096 + 64)
