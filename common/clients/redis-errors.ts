// Errors that mean "Redis (or the part of the cluster holding the key) cannot answer now": the
// request may succeed later, so it is answered 503 dependency_unavailable with Retry-After, never
// 500. Most call sites wrap their Redis calls already; the error middleware uses this for the rest,
// and for what a cluster adds (a master failing over: CLUSTERDOWN, TRYAGAIN, redirections exhausted).

const unavailableNames = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);

const unavailableMessages = [
  /^Connection is closed/,
  /^Command timed out/,
  /enableOfflineQueue options is false/,
  /^Too many Cluster redirections/,
  /^None of startup nodes is available/,
  /^Failed to refresh slots cache/,
  /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY)\b/,
];

export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (unavailableNames.has(error.name)) return true;
  return unavailableMessages.some((pattern) => pattern.test(error.message));
}
