// ZooKeeper 3.9.5 (standalone, one node) from its Maven Central jars, for the replicated
// ClickHouse test: the coordination service Replicated*MergeTree tables register in
// (docs/scaling.md, "Replicas in production"). Jars are copied once into <cacheDir>/zookeeper-3.9.5/libs
// (the pom's hash marks them complete); data and logs live under the given state directory.
// Listens on 127.0.0.1 only; its admin HTTP server (port 8080 by default) is off.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureMavenJars } from './maven.mjs';
import { isAlive, readPid, startDaemon, stopPid, tcpOpen, waitUntil } from './processes.mjs';
import { pidFile, repoRoot } from './settings.mjs';

const COMPONENT = 'zookeeper';
const VERSION = '3.9.5';
const POM = path.join(repoRoot, 'infra/local/zookeeper/pom.xml');

async function ensureJars(settings) {
  const libs = path.join(settings.cacheDir, `zookeeper-${VERSION}`, 'libs');
  await ensureMavenJars({
    component: COMPONENT,
    what: `ZooKeeper ${VERSION}`,
    pom: POM,
    libs,
    cacheDir: settings.cacheDir,
  });
  return libs;
}

function paths(settings) {
  const dir = path.join(settings.stateDir, COMPONENT);
  return {
    dir,
    data: path.join(dir, 'data'),
    pid: pidFile(settings, COMPONENT, 1),
    log: path.join(settings.logDir, 'zookeeper.log'),
  };
}

/** True once ZooKeeper serves requests (`srvr` names its mode; an open port alone is not enough). */
function serving(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(1_000, () => socket.destroy());
    socket.on('connect', () => socket.write('srvr'));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(answer.includes('Mode:')));
  });
}

/** Starts ZooKeeper on 127.0.0.1:`port` unless it runs already; resolves when it answers. */
export async function startZooKeeper(settings, port) {
  const p = paths(settings);
  const running = readPid(p.pid);
  if (isAlive(running)) return { port, startedPid: 0 };
  if (await tcpOpen(port))
    throw new Error(`ZooKeeper: port ${port} on 127.0.0.1 is in use by a process this stack did not start`);
  const libs = await ensureJars(settings);
  fs.mkdirSync(p.data, { recursive: true });
  fs.mkdirSync(settings.logDir, { recursive: true });
  const config = path.join(p.dir, 'zoo.cfg');
  fs.writeFileSync(
    config,
    [
      `dataDir=${p.data}`,
      `clientPort=${port}`,
      'clientPortAddress=127.0.0.1',
      'tickTime=2000',
      'admin.enableServer=false',
      // `srvr` only: the readiness probe below.
      '4lw.commands.whitelist=srvr',
      '',
    ].join('\n'),
  );
  const pid = startDaemon({
    component: COMPONENT,
    command: 'java',
    args: ['-Xmx128m', '-cp', `${libs}/*`, 'org.apache.zookeeper.server.quorum.QuorumPeerMain', config],
    logFile: p.log,
    pidFile: p.pid,
    cwd: p.dir,
  });
  await waitUntil('ZooKeeper', () => serving(port), { timeoutMs: 60_000, logFile: p.log, pid });
  return { port, startedPid: pid };
}

export async function stopZooKeeper(settings) {
  await stopPid(COMPONENT, paths(settings).pid);
}
