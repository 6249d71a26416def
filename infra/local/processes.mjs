// Start, probe and stop the stack's server processes by PID file. Dependency-free.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { inheritedEnvironment } from './settings.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

export function log(component, message) {
  process.stdout.write(`[stack] ${component}: ${message}\n`);
}

export function isAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function readPid(pidFile) {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return 0;
  }
}

/**
 * Spawns a long-running server detached from our process group, so Ctrl-C in a terminal reaches
 * only the orchestrator, which then stops the servers in order. Output goes to `logFile`.
 */
export function startDaemon({
  component,
  command,
  args,
  logFile,
  pidFile,
  env = inheritedEnvironment(),
  cwd,
}) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out], env, cwd });
  fs.closeSync(out);
  child.unref();
  fs.mkdirSync(path.dirname(pidFile), { recursive: true });
  fs.writeFileSync(pidFile, String(child.pid));
  log(component, `started pid ${child.pid} (log ${logFile})`);
  return child.pid;
}

/**
 * Runs a command to completion without blocking the event loop (the stack starts its components in
 * parallel: a synchronous Maven download or compile would freeze every other component's readiness
 * polling past its deadline). Resolves with the output; rejects with an Error carrying `stdout`,
 * `stderr` and `status`.
 */
export function runCommand(command, args, { env = inheritedEnvironment(), cwd, inheritStderr = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env,
      cwd,
      stdio: ['ignore', 'pipe', inheritStderr ? 'inherit' : 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => {
      if (status === 0) return resolve({ stdout, stderr });
      reject(Object.assign(new Error(`${command} exited with ${status}`), { stdout, stderr, status }));
    });
  });
}

/**
 * Runs a setup step (venv, pip, a converter) quietly: resolves with its interleaved output, or
 * rejects with the command and the output's tail, which is what explains a failed install.
 */
export function runStep(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${output.slice(-2000)}`)),
    );
  });
}

/** Polls `probe` until it resolves truthy; fails naming the component and its log. */
export async function waitUntil(
  component,
  probe,
  { timeoutMs = 60_000, intervalMs = 200, logFile, pid } = {},
) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  // At least one probe after the deadline: a synchronous step elsewhere (the first Maven download of
  // the Kafka jars) can hold the event loop longer than the timeout, which must not fail a
  // component that has been up all along.
  for (let last = false; !last;) {
    last = Date.now() >= deadline;
    if (pid && !isAlive(pid)) break;
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
    if (!last) await sleep(intervalMs);
  }
  // One last probe: the deadline may have passed while this process was busy, not the component.
  if (!pid || isAlive(pid)) {
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
  }
  const why = pid && !isAlive(pid) ? 'the process exited' : `not ready after ${timeoutMs} ms`;
  const tail = logFile ? tailFile(logFile, 20) : '';
  throw new Error(
    `${component} failed to start: ${why}${lastError ? ` (last probe error: ${lastError.message})` : ''}.` +
      (logFile ? `\nSee ${logFile}; last lines:\n${tail}` : ''),
  );
}

export function tailFile(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * SIGTERM, wait for exit, then SIGKILL. Removes the PID file. `stoppedEarly` lets a component say
 * it has finished its clean shutdown before the process exits (see stopClickHouse).
 */
export async function stopPid(component, pidFile, { timeoutMs = 20_000, stoppedEarly } = {}) {
  const pid = readPid(pidFile);
  if (isAlive(pid)) {
    log(component, `stopping pid ${pid}`);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + timeoutMs;
    while (isAlive(pid) && Date.now() < deadline) {
      if (stoppedEarly && (await stoppedEarly())) break;
      await sleep(100);
    }
    if (isAlive(pid)) {
      if (!stoppedEarly) log(component, `did not stop in ${timeoutMs} ms, killing`);
      process.kill(pid, 'SIGKILL');
    }
  }
  fs.rmSync(pidFile, { force: true });
}

/** True when something accepts TCP connections on host:port. */
export function tcpOpen(port, host = '127.0.0.1', timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function commandExists(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Installs Debian packages when a command is missing (we run as root on the target machines). */
export function aptInstall(component, packages) {
  log(component, `installing ${packages.join(' ')} with apt-get`);
  const env = { ...inheritedEnvironment(), DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], {
      stdio: 'inherit',
      env,
    });
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    install();
  }
}
