// `npm test`: lint, format and type checks, then the whole vitest suite against a real local stack
// in its own state directory and ports (so it can run beside `npm start`), the fault phase, and
// the cluster phase: fault tests on a cluster-topology stack of its own (state `<state>/cluster`,
// ports RLS_PORT_BASE+500). Extra arguments go to vitest (e.g. `npm test -- test/unit`, or
// `npm test -- --project faults test/faults/x.test.ts`); `npm test -- --cluster [files]` runs the
// cluster phase alone. RLS_KEEP_STACK=1 leaves the
// single-topology stack running afterwards.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { build } from '../build.mjs';
import { ensureDependencies } from './bootstrap.mjs';
import { inheritedEnvironment, launcher, readSettings, repoRoot } from './settings.mjs';

await ensureDependencies();

// vitest.config.ts holds four projects: unit, integration, faults, cluster. Arguments name test
// files (each selects the project of its folder) or projects (`--project faults`); the older
// `--config vitest.<project>.config.ts` is read as `--project <project>`.
const { projects: chosenProjects, args: passedArgs } = selectProjects(process.argv.slice(2));

/** The projects named or implied by `args`, and `args` without the project options. */
function selectProjects(args) {
  const projects = new Set();
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const legacy = /^vitest\.(\w+)\.config\.ts$/;
    if ((arg === '--project' || arg === '--config') && i + 1 < args.length) {
      const value = args[++i];
      if (arg === '--project') projects.add(value);
      else if (legacy.test(value)) projects.add(legacy.exec(value)[1]);
      else if (value !== 'vitest.config.ts')
        throw new Error(`one vitest configuration: vitest.config.ts, not ${value}`);
    } else if (arg.startsWith('--project=')) projects.add(arg.slice('--project='.length));
    else rest.push(arg);
  }
  for (const project of projects) {
    if (!['unit', 'integration', 'faults', 'cluster'].includes(project))
      throw new Error(`unknown test project "${project}": unit, integration, faults or cluster`);
  }
  if (projects.has('cluster') && projects.size > 1)
    throw new Error('the cluster project runs alone (--cluster)');
  if (projects.size === 0) {
    for (const arg of rest) {
      const folder = /^test\/(unit|integration|faults)(\/|$)/.exec(arg)?.[1];
      if (folder) projects.add(folder);
    }
  }
  return { projects: [...projects], args: rest };
}

const projectArgs = (projects) => projects.flatMap((name) => ['--project', name]);

// Unit files alone (`npm test -- test/unit/x.test.ts`, `npm run test:unit`) need no service: no
// build, no stack, no global setup.
if (chosenProjects.length === 1 && chosenProjects[0] === 'unit') {
  const unitCode = await new Promise((resolve) => {
    const child = spawn('npx', ['vitest', 'run', '--project', 'unit', ...passedArgs], {
      cwd: repoRoot,
      stdio: 'inherit',
      env: inheritedEnvironment(),
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  process.exit(unitCode);
}
const { log } = await import('./processes.mjs');
const { startStack } = await import('./stack.mjs');
const { ensureSchemathesis } = await import('./schemathesis.mjs');
const { installClients } = await import('./clients.mjs');

function run(command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...inheritedEnvironment(), ...env },
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const settings = readSettings(inheritedEnvironment(), { profile: 'test' });
const clusterOnly = passedArgs[0] === '--cluster' || chosenProjects.includes('cluster');
const vitestArgs = passedArgs.filter((arg) => arg !== '--cluster');
// A chosen subset skips the static checks and the later phases.
const quick = vitestArgs.length > 0 || chosenProjects.length > 0 || clusterOnly;
// The main phase: the projects chosen, or by default the unit and integration tests.
const mainProjects = chosenProjects.length > 0 ? chosenProjects : ['unit', 'integration'];

/** Variables of the cluster phase's own stack: cluster topology, ports and state beside the main one. */
function clusterPhaseEnv() {
  const base = settings.portBase + 500;
  const blank = [
    'KAFKA_PORT',
    'KAFKA_CONTROLLER_PORT',
    'CLICKHOUSE_HTTP_PORT',
    'CLICKHOUSE_TCP_PORT',
    'REDIS_PORT',
  ];
  return {
    ...Object.fromEntries(blank.map((name) => [name, ''])),
    RLS_TOPOLOGY: 'cluster',
    RLS_PORT_BASE: String(base),
    PORT: String(settings.port + 500),
    RLS_STATE_DIR: path.join(settings.stateDir, 'cluster'),
  };
}

/**
 * Brings up the cluster-topology stack, runs the cluster project against it, and stops every
 * node of it (the tests restart nodes they killed, so this stops all of them, not only the first).
 */
async function clusterPhase(commonEnv) {
  const { stopComponents } = await import('./stack.mjs');
  const overrides = clusterPhaseEnv();
  const clusterSettings = readSettings({ ...inheritedEnvironment(), ...overrides }, { profile: 'test' });
  log('test', `cluster phase (project cluster) on ports from ${overrides.RLS_PORT_BASE}`);
  try {
    const clusterStack = await startStack(clusterSettings, { ...inheritedEnvironment(), ...overrides });
    const env = {
      ...commonEnv,
      ...overrides,
      ...clusterStack.env,
      RLS_TEST_STREAM_METRICS_PORT: String(clusterSettings.port + 10),
      RLS_TEST_ARTIFACTS_DIR: path.join(clusterSettings.stateDir, 'artifacts'),
    };
    return await run('npx', ['vitest', 'run', '--project', 'cluster', ...vitestArgs], env);
  } finally {
    await stopComponents(clusterSettings);
  }
}

let stack;
let code = 1;
try {
  const checks = quick
    ? Promise.resolve(0)
    : Promise.all([
        run('npx', ['eslint', '.']),
        run('npx', ['prettier', '--check', '.', '--log-level', 'warn']),
        run('npx', ['tsc', '--noEmit']),
      ]).then((codes) => codes.find((c) => c !== 0) ?? 0);
  // The services under test run dist/ (what ships); a quick run tolerates type errors elsewhere in
  // the work tree (tsc still emits), the full run fails on them in the checks above anyway.
  const built = build({ allowTypeErrors: quick });
  // The OpenAPI conformance test's Schemathesis, in a cached virtualenv (first run: ~1 min of pip).
  const schemathesis = ensureSchemathesis(settings);
  // The client packages as their users install them (first run: a virtualenv with httpx).
  const clients = installClients(settings);
  for (const step of [built, schemathesis, clients]) step.catch(() => undefined); // awaited below
  stack = clusterOnly ? undefined : await startStack(settings);
  await built;
  const schemathesisPython = await schemathesis;
  const installedClients = await clients;
  // The dashboard's browser test drives Debian's Chromium (apt-get on the first run, synchronous:
  // after the stack's probes, not during them).
  const { ensureChromium } = await import('./chromium.mjs');
  ensureChromium();
  // promtool for the alert rules' tests (Debian's prometheus package, apt-get on the first run).
  const { ensurePromtool } = await import('./promtool.mjs');
  ensurePromtool();
  const checksCode = await checks;
  if (checksCode !== 0) log('test', 'lint, format or type check failed');
  const testEnv = {
    ...stack?.env,
    NODE_ENV: 'test',
    RLS_TEST_PROFILE: '1',
    // Webhook/image receivers in tests listen on 127.0.0.1; production leaves OUTBOUND_ALLOW_CIDRS empty.
    OUTBOUND_ALLOW_CIDRS: launcher.outboundAllowCidrs ?? '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE_MS: launcher.webhookRetryScheduleMs ?? '0,500,1500,3000',
    // Health details (components, lag, errors) are shown only with this token (docs/operations.md, "Health endpoints").
    OPERATOR_TOKEN: launcher.operatorToken ?? 'rls-test-operator-token',
    // Workers the tests start bind any free port for /metrics; the suite's own worker (global-setup)
    // gets PORT + 10, where the metrics tests read it, and its image process PORT + 11.
    STREAM_METRICS_PORT: '0',
    RLS_TEST_STREAM_METRICS_PORT: String(settings.streamMetricsPort),
    IMAGES_METRICS_PORT: '0',
    RLS_TEST_IMAGES_METRICS_PORT: String(settings.imagesMetricsPort),
    RLS_SCHEMATHESIS_PYTHON: schemathesisPython,
    RLS_CLIENT_PYTHON: installedClients.python,
    RLS_CLIENT_PYTHONPATH: installedClients.pythonPath,
    RLS_CLIENT_TS_ENTRY: installedClients.typescriptEntry,
    // Artifacts of the run a person may want to look at (the dashboard's screenshot, Schemathesis's report).
    RLS_TEST_ARTIFACTS_DIR: path.join(settings.stateDir, 'artifacts'),
  };
  let vitestCode = clusterOnly
    ? 0
    : await run('npx', ['vitest', 'run', ...projectArgs(mainProjects), ...vitestArgs], testEnv);
  // The fault phase stops components and kills workers, so it runs alone, after the main suite.
  if (!quick && vitestCode === 0) {
    log('test', 'fault phase (project faults)');
    vitestCode = await run('npx', ['vitest', 'run', '--project', 'faults'], testEnv);
  }
  // The cluster phase last: its stack is started only now, so the phases never compete for memory.
  if ((!quick || clusterOnly) && vitestCode === 0) {
    if (stack && !launcher.keepStack) {
      await stack.stop();
      stack = undefined;
    }
    vitestCode = await clusterPhase(testEnv);
  }
  code = checksCode || vitestCode;
} catch (error) {
  process.stderr.write(`[test] ${error.stack ?? error.message}\n`);
} finally {
  if (stack && !launcher.keepStack) await stack.stop();
}
process.exit(code);
