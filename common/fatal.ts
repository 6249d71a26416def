// A way for deep code to say "this process cannot go on; stop it and let the supervisor start a
// fresh one" (systemd's Restart=always, compose's restart policy), without a path of its own to the
// entry point: runProcess (run.ts) installs the handler, which stops the process cleanly and exits
// with code 1. Used where a component gave up for good and nothing in the process restarts it,
// such as a Kafka consumer kafkajs does not restart.
type FatalHandler = (reason: string) => void;

let handler: FatalHandler | undefined;

/** Installed once per process by runProcess; tests install their own. */
export function onFatal(next: FatalHandler | undefined): void {
  handler = next;
}

/** Stops the process (exit code 1) with `reason` logged; outside runProcess only throws nothing. */
export function fatal(reason: string): void {
  handler?.(reason);
}
