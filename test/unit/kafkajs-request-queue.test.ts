// The request-queue fix (common/clients/kafkajs-request-queue.ts): kafkajs 2.2.4 re-armed a 1 ms
// check timer forever on every connection; the replacement arms one only when requests wait or a
// throttle is still running, and the installed kafkajs is the version it replaces.
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { patchRequestQueue } from '../../common/clients/kafkajs-request-queue.ts';

const require = createRequire(import.meta.url);
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: object };

/** A request queue's scheduling state, on kafkajs' prototype, with a spy for the check itself. */
function queue(state: { pending?: unknown[]; throttledUntil?: number }) {
  const q = Object.create(RequestQueue.prototype) as {
    pending: unknown[];
    throttledUntil: number;
    throttleCheckTimeoutId: NodeJS.Timeout | null;
    checkPendingRequests: () => void;
    scheduleCheckPendingRequests: () => void;
  };
  q.pending = state.pending ?? [];
  q.throttledUntil = state.throttledUntil ?? -1; // kafkajs' initial value
  q.throttleCheckTimeoutId = null;
  q.checkPendingRequests = vi.fn();
  return q;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('kafkajs request queue (happy)', () => {
  it('is installed on the kafkajs in use (its unfixed scheduler was recognised)', () => {
    expect(patchRequestQueue()).toBe('already');
  });

  it('arms no timer when nothing waits and nothing is throttled', async () => {
    const q = queue({});
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(q.checkPendingRequests).not.toHaveBeenCalled();
  });

  it('checks waiting requests after 10 ms, once', async () => {
    const q = queue({ pending: [{}] });
    q.scheduleCheckPendingRequests();
    q.scheduleCheckPendingRequests(); // already armed
    await vi.advanceTimersByTimeAsync(9);
    expect(q.checkPendingRequests).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(q.checkPendingRequests).toHaveBeenCalledTimes(1);
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it('checks when a throttle ends, with or without waiting requests', async () => {
    for (const pending of [[], [{}]]) {
      const q = queue({ pending, throttledUntil: Date.now() + 500 });
      q.scheduleCheckPendingRequests();
      await vi.advanceTimersByTimeAsync(499);
      expect(q.checkPendingRequests).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(q.checkPendingRequests).toHaveBeenCalledTimes(1);
    }
  });
});

describe('kafkajs request queue (edge)', () => {
  it('leaves a scheduler it does not recognise alone (a kafkajs that fixed it)', () => {
    class Fixed {
      scheduleCheckPendingRequests() {
        if (Math.random() > 2) return;
      }
    }
    const before = Fixed.prototype.scheduleCheckPendingRequests;
    expect(patchRequestQueue(Fixed as never)).toBe('left alone');
    expect(Fixed.prototype.scheduleCheckPendingRequests).toBe(before);
  });
});
