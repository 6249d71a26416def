// Work a fault test keeps going while it breaks something (ingest, rate-limited traffic): `step`
// runs again and again, in `loops` parallel loops, until stop(), which waits for the steps in
// flight to finish and answers `result()`.
export function untilStopped<T>(
  step: () => Promise<void>,
  result: () => T,
  loops = 1,
): { stop(): Promise<T> } {
  let running = true;
  const done = Promise.all(
    Array.from({ length: loops }, async () => {
      while (running) await step();
    }),
  );
  return {
    async stop() {
      running = false;
      await done;
      return result();
    },
  };
}
