// The two ways an outbound call fails. Messages are shown to integrators (the webhook registration's
// 400, a delivery's last_failure_reason, an image check's error), so a refusal never says what a
// host name resolves to: that would let anyone map our internal DNS. The resolved address and the
// policy's reason travel in `detail`, for our logs only.

export type RefusalCode =
  'invalid_url' | 'unsupported_scheme' | 'credentials_in_url' | 'unresolvable_host' | 'forbidden_address';

/** A call the policy refused before any connection was made. */
export class OutboundRefusedError extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    /** What our logs need and the caller must not see (the resolved address, the policy's reason). */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** A failure after the target was accepted: connect error, timeout, TLS error, reset. */
export class OutboundTransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'OutboundTransportError';
  }
}
