// What a batch's heartbeats say about its partition: the errors used to be
// swallowed, so a member stuck in a ClickHouse outage went on as the owner of partitions the group
// had already given to another member.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { revokesAssignment, watchAssignment } from '../../stream/assignment-watch.ts';
import { BatchRevokedError } from '../../stream/sink/batch-fence.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const logger = createLogger('error');
const kafkaError = (type: string) => Object.assign(new Error(type), { type });

describe('assignment watch', () => {
  it.each(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'NOT_COORDINATOR_FOR_GROUP', 'UNKNOWN_MEMBER_ID'])(
    'security: a heartbeat answering %s revokes the batch with that error (kafkajs then rejoins)',
    async (type) => {
      const error = kafkaError(type);
      const watch = watchAssignment({
        heartbeat: () => Promise.reject(error),
        intervalMs: 20,
        sessionTimeoutMs: 10_000,
        logger,
        partition: 3,
      });
      await sleep(60);
      watch.stop();
      expect(watch.signal.aborted).toBe(true);
      expect(watch.signal.reason).toBe(error);
    },
  );

  it('happy: successful heartbeats, and brief failures of the connection, keep the batch', async () => {
    let calls = 0;
    const watch = watchAssignment({
      heartbeat: () =>
        ++calls % 3 === 0 ? Promise.reject(new Error('Connection timeout')) : Promise.resolve(),
      intervalMs: 20,
      sessionTimeoutMs: 1_000,
      logger,
      partition: 0,
    });
    await sleep(200);
    watch.stop();
    expect(calls).toBeGreaterThan(5);
    expect(watch.signal.aborted).toBe(false);
  });

  it('error: no successful heartbeat for the session timeout less two intervals revokes the batch', async () => {
    const watch = watchAssignment({
      heartbeat: () => Promise.reject(new Error('Connection error: ECONNREFUSED')),
      intervalMs: 20,
      sessionTimeoutMs: 200, // → given up after 160 ms
      logger,
      partition: 1,
    });
    await sleep(100);
    expect(watch.signal.aborted).toBe(false);
    await sleep(150);
    watch.stop();
    expect(watch.signal.reason).toBeInstanceOf(BatchRevokedError);
  });

  it('tells revoking heartbeat errors from the others', () => {
    expect(revokesAssignment(kafkaError('REBALANCE_IN_PROGRESS'))).toBe(true);
    expect(revokesAssignment(kafkaError('FENCED_INSTANCE_ID'))).toBe(true);
    expect(revokesAssignment(kafkaError('REQUEST_TIMED_OUT'))).toBe(false);
    expect(revokesAssignment(new Error('Connection timeout'))).toBe(false);
  });
});
