// Calls to this origin's API with the key the user typed (X-API-Key), shared by the dashboard's
// pages. A failed answer becomes an ApiError carrying the API's own message and code, which the
// pages show as they are.
export class ApiError extends Error {
  constructor(status, body) {
    const error = body && body.error;
    super(error ? `${error.message} (${status} ${error.code})` : `The API answered ${status}`);
    this.status = status;
    this.code = error ? error.code : undefined;
  }
}

/** The JSON answer of `method path` (with `body` as JSON when given); throws ApiError otherwise. */
export async function apiJson(method, path, key, body) {
  const headers = { 'X-API-Key': key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

export const getJson = (path, key) => apiJson('GET', path, key);

/** A status line's text for a failed call: the API's answer, or why the API was not reached. */
export const failure = (error) =>
  error instanceof ApiError ? error.message : `Could not reach the API: ${error.message}`;
