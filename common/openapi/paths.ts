// Which documented path template a request path is, and which methods it has: the `route` label of
// http_request_duration_seconds (a bounded set of values, never the raw path with its ids) and the
// 405 answer to a method the document does not declare for a path it does (method-not-allowed.ts).
import type { OpenApiRegistry } from './registry.ts';

export interface PathMatch {
  /** The template as documented, with the API prefix: /api/v1/listings/batches/{batch_id}. */
  template: string;
  /** Upper-case methods declared for every template the path matches (HEAD with GET). */
  methods: string[];
}

export interface PathMatcher {
  match(path: string): PathMatch | undefined;
}

/**
 * `prefix` is where the registry's paths are served (/api/v1); `extra` are paths served outside it
 * (/healthz, /metrics, /docs …) with their methods. Built on first use: routers register their paths
 * while the app is assembled, before the first request.
 */
export function createPathMatcher(
  registry: OpenApiRegistry | undefined,
  prefix: string,
  extra: Record<string, string[]> = {},
): PathMatcher {
  let compiled: { regex: RegExp; template: string; methods: Set<string>; literal: number }[] | undefined;

  function compile() {
    const byTemplate = new Map<string, Set<string>>();
    for (const { method, path } of registry?.operations() ?? []) {
      const methods = byTemplate.get(prefix + path) ?? new Set<string>();
      methods.add(method.toUpperCase());
      byTemplate.set(prefix + path, methods);
    }
    for (const [path, methods] of Object.entries(extra)) byTemplate.set(path, new Set(methods));
    return [...byTemplate]
      .map(([template, methods]) => {
        if (methods.has('GET')) methods.add('HEAD');
        const source = template
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('');
        // More literal characters first: /listings/bulk is a better name than /listings/{listing_id}.
        return {
          regex: new RegExp(`^${source}/?$`),
          template,
          methods,
          literal: template.replace(/\{[^}]+\}/g, '').length,
        };
      })
      .sort((a, b) => b.literal - a.literal);
  }

  return {
    match(path) {
      compiled ??= compile();
      const hits = compiled.filter((entry) => entry.regex.test(path));
      if (!hits.length) return undefined;
      const methods = new Set(hits.flatMap((hit) => [...hit.methods]));
      return { template: hits[0]!.template, methods: [...methods].sort() };
    },
  };
}
