/*
 * The native front's limits before a login (native-front.c says why they exist):
 * - at most UNAUTHENTICATED_MAX connections between accept and a successful login: 1,000 slow
 *   connections used to cost 1,000 threads; beyond the cap a connection is refused at once;
 * - a failed login is answered only after a delay, FIRST ms doubling with each failure up to MAX,
 *   counted again from FIRST after QUIET_S without a failure. The connection keeps its slot while
 *   it waits, so at most UNAUTHENTICATED_MAX / MAX guesses a second get an answer (32/s, against
 *   the ~2,300/s of a front without it). Every client is on loopback, so this is global, and a
 *   success does not reset it: anyone local can log in as `default`.
 */
#include <errno.h>
#include <pthread.h>

#include "front-limits.h"

#define UNAUTHENTICATED_MAX 64
#define FAILED_LOGIN_DELAY_FIRST_MS 50
#define FAILED_LOGIN_DELAY_MAX_MS 2000
#define FAILED_LOGIN_QUIET_S 60

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int unauthenticated;
static int failed_logins;        /* since the last quiet period */
static time_t last_failed_login; /* CLOCK_MONOTONIC seconds */

int admit_unauthenticated(void) {
  pthread_mutex_lock(&lock);
  int admitted = unauthenticated < UNAUTHENTICATED_MAX;
  if (admitted) unauthenticated++;
  pthread_mutex_unlock(&lock);
  return admitted;
}

void release_unauthenticated(void) {
  pthread_mutex_lock(&lock);
  unauthenticated--;
  pthread_mutex_unlock(&lock);
}

void pause_after_failed_login(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_mutex_lock(&lock);
  if (failed_logins > 0 && now.tv_sec - last_failed_login > FAILED_LOGIN_QUIET_S) failed_logins = 0;
  last_failed_login = now.tv_sec;
  int doublings = failed_logins < 16 ? failed_logins : 16;
  failed_logins++;
  pthread_mutex_unlock(&lock);
  long delay = (long)FAILED_LOGIN_DELAY_FIRST_MS << doublings;
  if (delay > FAILED_LOGIN_DELAY_MAX_MS) delay = FAILED_LOGIN_DELAY_MAX_MS;
  struct timespec pause = {.tv_sec = delay / 1000, .tv_nsec = (delay % 1000) * 1000000};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

long elapsed_ms(const struct timespec *since) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}
