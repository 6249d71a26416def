/* What the native front allows a client before it has logged in (front-limits.c). */
#include <time.h>

#define HELLO_DEADLINE_S 10 /* from accept to the whole Hello */

/* 1 and counted when another connection may wait to log in (at most UNAUTHENTICATED_MAX), else 0. */
int admit_unauthenticated(void);
/* A connection admitted above has logged in or is closed. */
void release_unauthenticated(void);
/* Counts a failed login and sleeps its delay (doubling per failure, capped). */
void pause_after_failed_login(void);
/* Milliseconds since `since` (CLOCK_MONOTONIC). */
long elapsed_ms(const struct timespec *since);
