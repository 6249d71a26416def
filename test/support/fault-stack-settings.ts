// Settings of the stack `npm test` started (ports, state dir), for fault tests that stop and start
// its components. The URL variables are blanked so the settings describe the provisioned stack;
// each test also checks that the environment's URLs point at it (not at external servers).
import { readSettings } from '../../infra/local/settings.mjs';

export const stackSettings = readSettings(
  { ...process.env, KAFKA_BROKERS: '', CLICKHOUSE_URL: '', REDIS_URL: '' },
  { profile: 'test' },
);
