// The handler of a route whose POST an Idempotency-Key can replay under `endpoint` (respond.ts):
// `work` answers for the calling key and the body; respond sends, stores or replays its outcome.
import type { ApiKeyRecord } from '../common/auth/key-store.ts';
import type { RouteAnswer, RouteInput } from '../common/http/route.ts';
import type { IngestContext } from './context.ts';
import { respond, type Outcome } from './respond.ts';

export type ReplayableHandler = (input: RouteInput<unknown, unknown>) => Promise<RouteAnswer>;

export function replayable(
  ctx: Pick<IngestContext, 'idempotency' | 'platform'>,
  endpoint: string,
  work: (auth: ApiKeyRecord, body: unknown) => Promise<Outcome>,
): ReplayableHandler {
  const options = { store: ctx.idempotency, endpoint, logger: ctx.platform.logger };
  return async ({ auth, body, req, res }) => {
    await respond(req, res, options, () => work(auth, body));
    return undefined;
  };
}
