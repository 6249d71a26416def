/*
 * The front of the native-protocol (TCP) port: it checks a client's login before clickhouse-local
 * sees it.
 *
 * Why: clickhouse-local 26.x is a client program that also serves. It installs the client's Poco
 * error handler, which calls std::terminate for any exception that reaches it, and its TCP handler
 * lets the exception of a failed Hello (wrong password, unknown user or database, a packet that is
 * not a Hello) escape to Poco's connection thread, which hands it to that handler: the process
 * aborts with signal 6 (its log: "<Fatal> ClientBase: Terminate called for uncaught exception:
 * Code: 516 ... AUTHENTICATION_FAILED"). HTTP logins are not affected: the HTTP handler answers
 * its own exceptions.
 *
 * So the server's own native listener is on an internal port, and this front owns the public one.
 * Per connection it reads the client's Hello (the only packet a client sends before the server
 * answers), checks its user, password and database with one HTTP request to the same server
 * (`SELECT 1` as that user: a failed HTTP login is harmless), and then either replays the Hello to
 * the internal port and relays bytes both ways, or answers the client itself with the server's
 * error as a native Exception packet and closes. The users' configuration stays the one source of
 * truth for credentials. Queries after a successful login run exactly as before.
 *
 * The HTTP check must judge the same bytes the native login will: HTTP header values lose leading
 * and trailing whitespace (password " " is the empty password over HTTP, not over TCP), so a user
 * or password that begins or ends with whitespace, or holds a control character anywhere, is
 * refused here and never forwarded.
 *
 * Limits, so the front cannot be used to exhaust the server or to guess passwords quickly: the
 * whole Hello must arrive within HELLO_DEADLINE_S of the accept; only so many connections may wait
 * to log in (beyond that a connection is refused at once, without a thread); and a failed login is
 * answered only after a growing delay (front-limits.c).
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "front-limits.h"
#include "native-front.h"
#include "native-packets.h"

#define HELLO_MAX 16384 /* names and a password: far below this */
#define CHECK_TIMEOUT_S 10

struct front {
  int listen_fd;
  int native_port;
  int http_port;
};

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* The server's answer to a refused Hello, as the server itself would have sent it before aborting. */
static void send_exception(int fd, int32_t code, const char *message) {
  unsigned char out[EXCEPTION_PACKET_MAX];
  write_all(fd, out, exception_packet(out, code, message));
}

/* Refuses a connection over the cap at once, from the accept loop: a few bytes into an empty
 * socket buffer cannot block. 202 (TOO_MANY_SIMULTANEOUS_QUERIES): clients try again later. */
static void refuse_busy(int client) {
  unsigned char out[EXCEPTION_PACKET_MAX];
  size_t size = exception_packet(out, 202, "DB::Exception: too many connections waiting to log in; try again later.");
  if (send(client, out, size, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) { /* the client is gone: nothing to tell */
  }
  close(client);
}

static int connect_local(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void set_timeout(int fd, int seconds) {
  struct timeval timeout = {.tv_sec = seconds};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

/* 1 when the native login and an HTTP header carry `text` alike: no control character (bytes
 * below 0x20 and DEL) anywhere, and no space at either end (HTTP trims leading and trailing
 * whitespace from header values; the native protocol keeps every byte). */
static int same_over_http(const char *text) {
  size_t size = strlen(text);
  if (size > 0 && (text[0] == ' ' || text[size - 1] == ' ')) return 0;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    if (*p < 0x20 || *p == 0x7f) return 0;
  return 1;
}

static void url_encode(const char *text, char *out, size_t cap) {
  static const char hex[] = "0123456789ABCDEF";
  size_t at = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p && at + 4 < cap; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_') {
      out[at++] = (char)*p;
    } else {
      out[at++] = '%';
      out[at++] = hex[*p >> 4];
      out[at++] = hex[*p & 15];
    }
  }
  out[at] = '\0';
}

/* Logs in over HTTP as the Hello's user: 0 = accepted, else the server's error code, with its
 * message in `message` (the body minus the trailing newline). */
static int check_login(const struct front *front, const struct hello *hello, char *message, size_t cap) {
  const char *user = hello->user[0] ? hello->user : "default";
  if (!same_over_http(user) || !same_over_http(hello->password)) {
    snprintf(message, cap,
             "DB::Exception: Authentication failed: a user name or password must not begin or end "
             "with whitespace or contain control characters.");
    return 516;
  }
  char database[800];
  url_encode(hello->database, database, sizeof database);
  char request[4096];
  int size = snprintf(request, sizeof request,
                      "GET /?query=SELECT%%201%s%s HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                      "X-ClickHouse-User: %s\r\nX-ClickHouse-Key: %s\r\nConnection: close\r\n\r\n",
                      hello->database[0] ? "&database=" : "", database, user, hello->password);
  if (size <= 0 || (size_t)size >= sizeof request) {
    snprintf(message, cap, "DB::Exception: Authentication failed: login too long.");
    return 516;
  }
  int fd = connect_local(front->http_port);
  if (fd < 0) {
    snprintf(message, cap, "DB::Exception: the server is starting; try again.");
    return 210; /* NETWORK_ERROR: clients retry it */
  }
  set_timeout(fd, CHECK_TIMEOUT_S);
  char response[8192];
  size_t got = 0;
  if (write_all(fd, request, (size_t)size) == 0) {
    for (;;) {
      ssize_t n = recv(fd, response + got, sizeof response - 1 - got, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += (size_t)n;
      if (got == sizeof response - 1) break;
    }
  }
  close(fd);
  response[got] = '\0';
  int status = 0;
  if (sscanf(response, "HTTP/1.%*d %d", &status) != 1) {
    snprintf(message, cap, "DB::Exception: no answer from the server; try again.");
    return 210;
  }
  if (status == 200) return 0;
  int code = 516;
  const char *header = strstr(response, "X-ClickHouse-Exception-Code: ");
  if (header) code = atoi(header + strlen("X-ClickHouse-Exception-Code: "));
  const char *body = strstr(response, "\r\n\r\n");
  body = body ? body + 4 : "";
  /* "Code: 516. DB::Exception: ..." -> "DB::Exception: ...", as the native protocol sends it. */
  const char *text = strstr(body, "DB::Exception");
  snprintf(message, cap, "%s", text ? text : body);
  size_t end = strlen(message);
  while (end > 0 && (message[end - 1] == '\n' || message[end - 1] == '\r')) message[--end] = '\0';
  return code > 0 ? code : 516;
}

/* Copies bytes both ways until either side closes. */
static void relay(int client, int server) {
  struct pollfd fds[2] = {{.fd = client, .events = POLLIN}, {.fd = server, .events = POLLIN}};
  char chunk[65536];
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; i++) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = recv(fds[i].fd, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || write_all(fds[1 - i].fd, chunk, (size_t)n) != 0) return;
    }
  }
}

struct connection {
  const struct front *front;
  int client;
  struct timespec accepted; /* CLOCK_MONOTONIC */
};

/* Reads the client's Hello until it is whole, malformed, or the deadline from accept passes.
 * Returns parse_hello's state (1 = whole) and the bytes read in *len. */
static int read_hello(int client, const struct timespec *accepted, unsigned char *buffer, size_t cap,
                      size_t *len, struct hello *hello) {
  int state = 0;
  while (state == 0 && *len < cap) {
    long left = HELLO_DEADLINE_S * 1000L - elapsed_ms(accepted);
    if (left <= 0) return 0;
    struct pollfd readable = {.fd = client, .events = POLLIN};
    int ready = poll(&readable, 1, (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return 0;
    ssize_t n = recv(client, buffer + *len, cap - *len, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return 0;
    *len += (size_t)n;
    state = parse_hello(buffer, *len, hello);
  }
  return state;
}

static void *serve_connection(void *argument) {
  struct connection *connection = argument;
  const struct front *front = connection->front;
  int client = connection->client;
  struct timespec accepted = connection->accepted;
  free(connection);

  unsigned char buffer[HELLO_MAX];
  size_t len = 0;
  struct hello hello;
  set_timeout(client, HELLO_DEADLINE_S); /* our own writes to a client that reads nothing */
  int state = read_hello(client, &accepted, buffer, sizeof buffer, &len, &hello);
  if (state != 1) {
    if (len > 0)
      send_exception(client, 101, "DB::Exception: Unexpected packet from client: expected a Hello "
                                  "(this port speaks ClickHouse's native protocol).");
    close(client);
    release_unauthenticated();
    return NULL;
  }
  char message[4096];
  int code = check_login(front, &hello, message, sizeof message);
  if (code != 0) {
    if (code != 210) pause_after_failed_login(); /* a refused login, not a server that is starting */
    send_exception(client, code, message);
    close(client);
    release_unauthenticated();
    return NULL;
  }
  release_unauthenticated();
  int server = connect_local(front->native_port);
  if (server < 0) {
    send_exception(client, 210, "DB::Exception: the server is restarting; try again.");
    close(client);
    return NULL;
  }
  set_timeout(client, 0); /* queries may run for a long time */
  int on = 1;
  setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (write_all(server, buffer, len) == 0) relay(client, server);
  close(server);
  close(client);
  return NULL;
}

static void *accept_loop(void *argument) {
  const struct front *front = argument;
  for (;;) {
    int client = accept4(front->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
        usleep(100000);
        continue;
      }
      perror("native front: accept");
      return NULL;
    }
    if (!admit_unauthenticated()) {
      refuse_busy(client);
      continue;
    }
    struct connection *connection = malloc(sizeof *connection);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    if (connection) {
      connection->front = front;
      connection->client = client;
      clock_gettime(CLOCK_MONOTONIC, &connection->accepted);
    }
    if (!connection || pthread_create(&thread, &attributes, serve_connection, connection) != 0) {
      free(connection);
      close(client);
      release_unauthenticated();
    }
    pthread_attr_destroy(&attributes);
  }
}

int start_native_front(int public_port, int native_port, int http_port) {
  static struct front front;
  front.native_port = native_port;
  front.http_port = http_port;
  front.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (front.listen_fd < 0) return -1;
  int on = 1;
  setsockopt(front.listen_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(public_port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(front.listen_fd, (struct sockaddr *)&address, sizeof address) != 0 ||
      listen(front.listen_fd, 128) != 0) {
    perror("native front: listen");
    close(front.listen_fd);
    return -1;
  }
  pthread_t thread;
  if (pthread_create(&thread, NULL, accept_loop, &front) != 0) return -1;
  pthread_detach(thread);
  return 0;
}
