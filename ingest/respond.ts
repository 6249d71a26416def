// Sends a route's outcome, through the Idempotency-Key store when the client sent the header.
// Final 4xx outcomes are stored and replayed like 2xx ones (the same body fails the same way),
// without their body (ingest/idempotency.ts).
import type { Request, Response } from 'express';
import { authOf } from '../common/auth/authenticate.ts';
import { dailyQuota } from '../common/auth/tiers.ts';
import { AppError, dependencyUnavailable, type ErrorDetail } from '../common/errors.ts';
import { errorBody } from '../common/http/errors.ts';
import { errorFields, type Logger } from '../common/logger.ts';
import {
  bodyDigest,
  replayedError,
  type IdempotencyScope,
  type IdempotencyStore,
  type StoredResponse,
} from './idempotency.ts';

export interface Outcome {
  status: number;
  body: unknown;
}

/** A batch in which nothing was accepted: a final 400 whose details are the would-be answer. */
export function noneAccepted(items: string, response: ErrorDetail): AppError {
  return new AppError('all_listings_failed', `No ${items} in the request was accepted; see details.results`, {
    details: response,
    retriable: false,
  });
}

/** A replayed answer is scoped by the endpoint and the calling key's account and mode. */
export async function respond(
  req: Request,
  res: Response,
  options: { store: IdempotencyStore; endpoint: string; logger: Logger },
  work: () => Promise<Outcome>,
): Promise<void> {
  const key = req.get('idempotency-key');
  if (key === undefined) {
    const outcome = await work();
    res.status(outcome.status).json(outcome.body);
    return;
  }
  const auth = authOf(req);
  const scope: IdempotencyScope = { endpoint: options.endpoint, accountId: auth.account_id, mode: auth.mode };
  const claim = await options.store
    .claim(scope, key, req.rawBody ?? Buffer.alloc(0))
    .catch((error: unknown) => {
      throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
    });
  if (claim.kind === 'replay') {
    const stored = claim.response;
    res.setHeader('Idempotency-Replayed', 'true');
    if ('body' in stored) res.status(stored.status).type('application/json').send(stored.body);
    else res.status(stored.status).json(replayedError(stored, req.requestId));
    return;
  }
  let outcome: Outcome;
  let errorCode: string | undefined;
  try {
    outcome = await work();
  } catch (error) {
    // Kept only when final: a retriable answer (5xx, 409 listing_in_progress) must let the retry run.
    if (!(error instanceof AppError) || error.retriable) {
      // A record left behind answers this key's retries 409 until it expires: log it, answer as planned.
      await options.store.release(claim.recordKey).catch((releaseError: unknown) =>
        options.logger.warn('idempotency record not released after a retriable failure', {
          endpoint: options.endpoint,
          request_id: req.requestId,
          ...errorFields(releaseError),
        }),
      );
      throw error;
    }
    outcome = { status: error.status, body: errorBody(error, req.requestId) };
    errorCode = error.code;
  }
  const text = JSON.stringify(outcome.body);
  const kept: StoredResponse =
    errorCode === undefined
      ? { status: outcome.status, body: text }
      : {
          status: outcome.status,
          error: { code: errorCode, requestId: req.requestId, digest: bodyDigest(text) },
        };
  // If this write fails the claim expires and a retry meanwhile is told 409: the response itself is
  // still correct, so log it and answer.
  await options.store
    .complete(claim.recordKey, kept, {
      owner: { accountId: scope.accountId, mode: scope.mode },
      limit: dailyQuota(auth, 'keptReplyBytesPerDay'),
    })
    .catch((completeError: unknown) =>
      options.logger.warn('idempotent reply not kept', {
        endpoint: options.endpoint,
        request_id: req.requestId,
        ...errorFields(completeError),
      }),
    );
  res.status(outcome.status).type('application/json').send(text);
}
