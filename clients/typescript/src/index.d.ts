// The client's types, from the generated schema.d.ts (openapi-typescript): a method per operationId
// whose argument holds the operation's path and query parameters by name and `body`, resolving to
// the operation's success answer.
import type { operations as Operations } from './schema.js';

export type { Operations };
export type { components, paths } from './schema.js';

type Present<T> = [NonNullable<T>] extends [never] ? false : true;
type Part<O, K extends string> = O extends { parameters: infer P }
  ? K extends keyof P
    ? Present<P[K]> extends true
      ? undefined extends P[K]
        ? Partial<NonNullable<P[K]>>
        : NonNullable<P[K]>
      : unknown
    : unknown
  : unknown;
type JsonOf<C> = C extends { content: infer M }
  ? M extends { 'application/json': infer J }
    ? J
    : string
  : undefined;
type BodyPart<O> = O extends { requestBody?: infer B }
  ? Present<B> extends true
    ? undefined extends B
      ? { body?: JsonOf<NonNullable<B>> }
      : { body: JsonOf<B> }
    : unknown
  : unknown;

/** The one object a method takes: path and query parameters by name, `body` for a request body. */
export type Args<O> = Part<O, 'path'> &
  Part<O, 'query'> &
  BodyPart<O> & {
    /** Only for operations that take one: defaults to a new UUID, the same on every retry. */
    idempotencyKey?: string;
  };

type Successes<R> = { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? JsonOf<R[S]> : never }[keyof R];
/** What a method resolves to: the success answer's parsed JSON. */
export type Result<O> = O extends { responses: infer R } ? Successes<R> : unknown;

// Without a required parameter (an empty object fits Args<O>) the argument may be left out.
type Method<O> =
  Record<string, never> extends Args<O>
    ? (args?: Args<O>) => Promise<Result<O>>
    : (args: Args<O>) => Promise<Result<O>>;

export type Client = { [K in keyof Operations]: Method<Operations[K]> } & {
  verifyWebhook: typeof verifyWebhook;
};

export interface ClientOptions {
  /** The API's base URL, ending in /api/v1. */
  baseUrl: string;
  apiKey?: string;
  /** Retries of 429 and retriable 5xx answers (default 5). */
  maxRetries?: number;
  /** Backoff when an answer has no Retry-After, doubled per retry (default 500 ms). */
  baseDelayMs?: number;
  /** Longest wait before a retry (default 60 000 ms). */
  maxDelayMs?: number;
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
}

export declare function createClient(options: ClientOptions): Client;

export declare class RlsApiError extends Error {
  readonly status: number;
  /** The API's error code, e.g. rate_limited, invalid_api_key. */
  readonly code: string;
  readonly requestId: string | null;
  readonly retriable: boolean;
  readonly details: unknown;
  readonly body: unknown;
}

export declare class WebhookVerificationError extends Error {}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The parsed event when the signature is valid; throws WebhookVerificationError otherwise. */
export declare function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options?: { now?: number },
): unknown;

export interface OperationSpec {
  method: string;
  path: string;
  outsideApiPrefix: boolean;
  pathParams: string[];
  queryParams: string[];
  idempotencyKey: boolean;
  body: 'required' | 'optional' | 'none';
}
export declare const operations: Record<keyof Operations, OperationSpec>;
