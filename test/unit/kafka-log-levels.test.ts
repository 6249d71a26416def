// What kafkajs logs reaches our logs at the level it deserves: its own errors are what it retries
// (a broker down during a failover, a consumer it restarts), so they are warnings; a consumer crash
// it does not restart is an error of ours.
import { describe, expect, it } from 'vitest';
import { crashReporter, createKafka } from '../../common/clients/kafka.ts';
import type { Logger } from '../../common/logger.ts';

function capturingLogger() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (msg: string) => void lines.push({ level, msg });
  const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as Logger;
  return { logger, lines };
}

describe('kafkajs log levels', () => {
  it('happy: kafkajs errors and warnings are warnings, its info is dropped below warn', () => {
    const { logger, lines } = capturingLogger();
    const kafka = createKafka(['127.0.0.1:1'], 'log-levels', logger);
    kafka.logger().error('Connection error: connect ECONNREFUSED 127.0.0.1:1', { broker: '127.0.0.1:1' });
    kafka.logger().warn('KafkaJS v2.0.0 switched default partitioner');
    kafka.logger().info('Starting');
    expect(lines).toEqual([
      { level: 'warn', msg: 'kafka: Connection error: connect ECONNREFUSED 127.0.0.1:1' },
      { level: 'warn', msg: 'kafka: KafkaJS v2.0.0 switched default partitioner' },
    ]);
  });

  it('error: a consumer crash kafkajs does not restart is an error and stops the process; one it restarts is neither', () => {
    const { logger, lines } = capturingLogger();
    const stops: string[] = [];
    const report = crashReporter(logger, (reason) => stops.push(reason));
    const crash = (restart: boolean) =>
      report({
        id: '1',
        type: 'consumer.crash',
        timestamp: 0,
        payload: { error: new Error('The group is rebalancing'), groupId: 'g', restart },
      });
    crash(true);
    expect(lines).toEqual([]);
    expect(stops).toEqual([]);
    crash(false);
    expect(lines).toEqual([
      { level: 'error', msg: 'kafka: consumer stopped after a crash kafkajs does not restart' },
    ]);
    expect(stops).toEqual(['the consumer of group g stopped: The group is rebalancing']);
  });
});
