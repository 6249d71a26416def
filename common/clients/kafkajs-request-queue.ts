// kafkajs 2.2.4's request queue arms a timer again after every check of its pending requests, even
// when nothing is pending and nothing is throttled. With its initial throttle deadline (-1) the delay
// is negative, so every connection checks again 1 ms later, forever (known upstream as "check
// pending requests runs in an infinite loop"; no release fixes it). Measured here: an idle image
// process spent ~28 ms of CPU a second on its main thread, about half of it this loop and the
// wake-ups it causes; every Kafka connection of every process paid it, loaded or idle
// (docs/decisions/0017-image-process-and-idle-consumers.md).
//
// The replacement arms the timer only when there is something to check: requests waiting (in 10 ms,
// or when the throttle ends, as before) or a throttle not yet over. Nothing else needs it: push()
// queues a request it cannot send at once and arms the timer itself; a response frees a slot and
// checks the queue right away (fulfillRequest → checkPendingRequests).
import { createRequire } from 'node:module';

interface RequestQueueInternals {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs' delay for a queued request when not throttled (its CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

const require = createRequire(import.meta.url);
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as {
  prototype: RequestQueueInternals;
};

/** Whether `source` is kafkajs 2.2.4's scheduleCheckPendingRequests, the one this replaces. */
function isUnfixedScheduler(source: string): boolean {
  return (
    source.includes('let scheduleAt = this.throttledUntil - Date.now()') &&
    source.includes('if (this.pending.length > 0)') &&
    !source.includes('return')
  );
}

function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId) return; // one check armed already
  let delay = this.throttledUntil - Date.now();
  if (this.pending.length > 0) delay = delay > 0 ? delay : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  else if (delay <= 0) return; // nothing waiting, nothing throttled: nothing to check
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delay);
}

/** Installs the replacement once; a kafkajs whose scheduler is not the unfixed one is left alone. */
export function patchRequestQueue(queue = RequestQueue): 'patched' | 'already' | 'left alone' {
  const current = queue.prototype.scheduleCheckPendingRequests;
  if (current === scheduleCheckPendingRequests) return 'already';
  if (!isUnfixedScheduler(current.toString())) return 'left alone';
  queue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  return 'patched';
}

patchRequestQueue();
