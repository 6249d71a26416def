// kafkajs 2.2.4 arms timers with a delay it computed as negative (a deadline already passed). Node
// ≥ 23 prints a TimeoutNegativeWarning for each and, as older Node did silently, fires them after
// 1 ms. The worst of them, its request queue's endless 1 ms check, is gone (kafkajs-request-queue.ts);
// this keeps any other such warning off the stderr of every process and CLI on the pinned Node 24,
// where a one-line error is the contract (npm run topics). Only that warning is dropped; every other
// warning is printed as before.
const emitWarning = process.emitWarning.bind(process);

process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
  const name = warning instanceof Error ? warning.name : type;
  if (name === 'TimeoutNegativeWarning') return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;
