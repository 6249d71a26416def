/*
 * ClickHouse 26.x as a server process, from the npm package @chdb/lib-linux-x64-gnu.
 *
 * libchdb.so is clickhouse-local as a library. `query_stable_v2(argc, argv)` runs clickhouse-local
 * with a command line and returns when its queries finish, and clickhouse-local closes its HTTP
 * and TCP listeners (opened by `SYSTEM START LISTEN`) when it returns. So the last query of the
 * command line must not finish while we want to serve: infra/local/clickhouse.mjs passes
 *
 *   SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP;
 *   SELECT count() FROM file('stdin', 'LineAsString') FORMAT Null
 *
 * and this program makes stdin a pipe whose write end only it holds. The query blocks on that
 * pipe at zero CPU. SIGTERM or SIGINT closes the write end: the query sees end of file and
 * finishes, clickhouse-local runs its normal shutdown (listeners closed, queries in flight
 * completed, tables detached), query_stable_v2 returns and we exit 0. No sleep, no busy loop, no
 * kill: the stop is clickhouse-local's own. Inserts that were acknowledged are durable either way
 * (MergeTree commits a part by renaming it into place), so even SIGKILL loses nothing committed.
 *
 * Built at provisioning time with gcc against the library in node_modules (rpath to it).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* From chdb.h (chdb 3.x / 26.x); only the fields we read. */
struct local_result_v2 {
  char *buf;
  size_t len;
  void *_vec;
  double elapsed;
  uint64_t rows_read;
  uint64_t bytes_read;
  char *error_message;
};
struct local_result_v2 *query_stable_v2(int argc, char **argv);

static sigset_t stop_signals;
static int stdin_write_end = -1;

static void *wait_for_stop(void *unused) {
  (void)unused;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  fprintf(stderr, "launcher: signal %d, stopping clickhouse-local\n", signal_number);
  close(stdin_write_end); /* end of file for the blocking query: clickhouse-local shuts down */
  return NULL;
}

int main(int argc, char **argv) {
  /* Blocked before any thread exists, so every ClickHouse thread inherits the mask and only
   * wait_for_stop receives the stop signals. */
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0 || dup2(pipe_fds[0], STDIN_FILENO) < 0) {
    perror("launcher: stdin pipe");
    return 2;
  }
  close(pipe_fds[0]);
  stdin_write_end = pipe_fds[1];

  pthread_t waiter;
  if (pthread_create(&waiter, NULL, wait_for_stop, NULL) != 0) {
    perror("launcher: signal thread");
    return 2;
  }

  struct local_result_v2 *result = query_stable_v2(argc, argv);
  if (result == NULL || result->error_message != NULL) {
    fprintf(stderr, "launcher: clickhouse-local failed: %s\n",
            result && result->error_message ? result->error_message : "no result");
    return 1;
  }
  fprintf(stderr, "launcher: clickhouse-local stopped cleanly\n");
  return 0;
}
