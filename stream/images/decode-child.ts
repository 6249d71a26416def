// The decoder's own process (decode-pool.ts): one photo at a time from the parent over IPC
// (structured clone, so buffers cross as bytes), answered with decodePhoto's result. The parent
// kills it when a decode outlives its deadline: libvips work cannot be interrupted from inside,
// and it runs on threads a worker thread's terminate() would not stop.
import { decodePhoto, type DecodeLimits } from './decode.ts';

interface Job {
  id: number;
  body: Uint8Array;
  limits: DecodeLimits;
}

process.on('message', (job: Job) => {
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  decodePhoto(body, job.limits).then(
    (result) => process.send!({ id: job.id, result }),
    (error: unknown) =>
      process.send!({
        id: job.id,
        result: { ok: false, outcome: 'not_an_image', error: String((error as Error)?.message ?? error) },
      }),
  );
});
// Loaded (sharp included): the parent's deadline starts from here, not from the fork.
process.send!({ ready: true });
// The parent going away ends the child (the IPC channel closes).
process.on('disconnect', () => process.exit(0));
