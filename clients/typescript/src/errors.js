// What the client throws: the API's own error (code, message, request_id) or a webhook that fails
// verification.
export class RlsApiError extends Error {
  constructor(status, body, headers) {
    const error = body && typeof body === 'object' ? body.error : undefined;
    super(error?.message ?? `The API answered ${status}`);
    this.name = 'RlsApiError';
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
    this.requestId = error?.request_id ?? headers?.get('x-request-id') ?? null;
    this.retriable = error?.retriable ?? false;
    this.details = error?.details;
    this.body = body;
  }
}

export class WebhookVerificationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}
