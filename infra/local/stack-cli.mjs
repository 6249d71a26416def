// `npm run stack -- up|down`: the local stack's components alone (Redis, ClickHouse, Kafka, the
// photo model), without the API or a stream worker, for benchmarks and profiling that start their
// own services. `up` leaves the components running and writes their variables to
// <RLS_STATE_DIR>/stack.env (`set -a; . .local/stack.env; set +a`); `down` stops them.
import fs from 'node:fs';
import path from 'node:path';
import { ensureDependencies } from './bootstrap.mjs';
import { inheritedEnvironment, readSettings } from './settings.mjs';

const action = process.argv[2];
if (action !== 'up' && action !== 'down') {
  process.stderr.write('usage: npm run stack -- up|down\n');
  process.exit(2);
}
await ensureDependencies();
const { log } = await import('./processes.mjs');
const { startStack } = await import('./stack.mjs');
// `up` starts whatever is missing (a node killed by its pid file rejoins) and leaves the rest alone.
const settings = readSettings(inheritedEnvironment(), { profile: 'start' });
const envFile = path.join(settings.stateDir, 'stack.env');

try {
  if (action === 'down') {
    const { stopComponents } = await import('./stack.mjs');
    await stopComponents(settings);
    fs.rmSync(envFile, { force: true });
    log('stack', 'stopped');
  } else {
    const stack = await startStack(settings);
    const lines = Object.entries(stack.env).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    fs.writeFileSync(envFile, `${lines.join('\n')}\n`);
    log('stack', `components running; their variables are in ${envFile}`);
  }
} catch (error) {
  process.stderr.write(`[stack] ${error.message}\n`);
  process.exit(1);
}
