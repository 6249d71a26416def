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
 * The public native port: clickhouse-local 26.x aborts the whole process when a native-protocol
 * Hello fails (wrong password, unknown user or database; native-front.c says why), so anyone who
 * can reach the TCP port could stop the warehouse. With `--native-front=PUBLIC:INTERNAL:HTTP` as
 * the first argument, the server's own native listener is on INTERNAL (config.xml) and the
 * front, running in the server's process, owns PUBLIC: it checks each login over HTTP first and
 * answers a failed one itself, so a wrong password never reaches clickhouse-local's TCP handler.
 *
 * Supervision, for any other abort: the launcher runs clickhouse-local in a child process and
 * starts it again whenever it dies from a signal, never giving up: after RESTART_DELAY_FIRST_MS,
 * doubling with each death that follows a short run, up to RESTART_DELAY_MAX_MS (a run longer than
 * STABLE_RUN_S counts the next delay from the start again). A warehouse that stays down until
 * someone restarts it by hand costs more than one that keeps trying, and the delay keeps a crash
 * loop from eating the CPU. SIGTERM/SIGINT are passed to the child, whose clean shutdown ends the
 * launcher with its status; during a delay they end the launcher at once. The child dies with the
 * launcher (PR_SET_PDEATHSIG), so a SIGKILL of the launcher is a SIGKILL of the server, as before.
 * test/faults/clickhouse-kill.test.ts covers both.
 *
 * Built at provisioning time with gcc against the library in node_modules (rpath to it).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native-front.h"

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

#define RESTART_DELAY_FIRST_MS 500
#define RESTART_DELAY_MAX_MS 10000
#define STABLE_RUN_S 60

static int front_ports[3]; /* public, internal native, HTTP; 0 = no front */

/* One clickhouse-local run in this (child) process; returns its exit status. */
static int serve(int argc, char **argv) {
  if (front_ports[0] && start_native_front(front_ports[0], front_ports[1], front_ports[2]) != 0) {
    perror("launcher: native front");
    return 2;
  }
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

int main(int argc, char **argv) {
  if (argc > 1 && strncmp(argv[1], "--native-front=", 15) == 0) {
    if (sscanf(argv[1] + 15, "%d:%d:%d", &front_ports[0], &front_ports[1], &front_ports[2]) != 3) {
      fprintf(stderr, "launcher: --native-front=PUBLIC:INTERNAL:HTTP expected\n");
      return 2;
    }
    argv[1] = argv[0]; /* clickhouse-local sees its own arguments only */
    argv++;
    argc--;
  }
  /* Blocked before any thread or child exists: the child's ClickHouse threads inherit the mask and
   * only wait_for_stop receives the stop signals there; here sigwait() takes them with SIGCHLD. */
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigset_t supervised = stop_signals;
  sigaddset(&supervised, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &supervised, NULL);

  pid_t launcher = getpid();
  long delay_ms = RESTART_DELAY_FIRST_MS;
  for (;;) {
    time_t started = time(NULL);
    pid_t child = fork();
    if (child < 0) {
      perror("launcher: fork");
      return 2;
    }
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != launcher) _exit(2); /* the launcher died before prctl took effect */
      _exit(serve(argc, argv));
    }
    int status = 0;
    for (;;) {
      int signal_number = 0;
      sigwait(&supervised, &signal_number);
      if (signal_number == SIGCHLD) {
        if (waitpid(child, &status, WNOHANG) == child) break;
        continue;
      }
      kill(child, SIGTERM); /* stop: the child shuts down cleanly and we exit with its status */
      waitpid(child, &status, 0);
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status); /* it ended by itself: do not loop */
    if (time(NULL) - started > STABLE_RUN_S) delay_ms = RESTART_DELAY_FIRST_MS;
    fprintf(stderr, "launcher: clickhouse-local died from signal %d; starting it again in %ld ms\n",
            WTERMSIG(status), delay_ms);
    /* The delay, unless a stop signal comes first (SIGCHLD of nothing: ignored). */
    struct timespec left = {.tv_sec = delay_ms / 1000, .tv_nsec = (delay_ms % 1000) * 1000000};
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += left.tv_sec;
    until.tv_nsec += left.tv_nsec;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    for (;;) {
      int signal_number = sigtimedwait(&supervised, NULL, &left);
      if (signal_number == SIGTERM || signal_number == SIGINT) {
        fprintf(stderr, "launcher: signal %d while waiting to restart; stopping\n", signal_number);
        return 0;
      }
      if (signal_number < 0 && errno == EAGAIN) break; /* the delay is over */
      struct timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      long remaining_ns = (until.tv_sec - now.tv_sec) * 1000000000L + (until.tv_nsec - now.tv_nsec);
      if (remaining_ns <= 0) break;
      left.tv_sec = remaining_ns / 1000000000L;
      left.tv_nsec = remaining_ns % 1000000000L;
    }
    delay_ms = delay_ms * 2 < RESTART_DELAY_MAX_MS ? delay_ms * 2 : RESTART_DELAY_MAX_MS;
  }
}
