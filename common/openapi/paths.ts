// Which documented path template a request path is, and which methods it has: the `route` label of
// http_request_duration_seconds (a bounded set of values, never the raw path with its ids) and the
// 405 answer to a method the document does not declare for a path it does (method-not-allowed.ts).
import type { OpenApiRegistry } from './registry.ts';

export interface PathMatch {
  /** The template as documented, with the API prefix: /api/v1/listings/batches/{batch_id}. */
  template: string;
  /** Upper-case methods declared for the template (HEAD with GET). */
  methods: string[];
}

export interface PathMatcher {
  match(path: string): PathMatch | undefined;
}

/**
 * `prefix` is where the registry's paths are served (/api/v1), except operations served outside it
 * (/healthz, /metrics, /docs …). Built on first use: routers register their paths while the app is
 * assembled, before the first request.
 */
export function createPathMatcher(registry: OpenApiRegistry, prefix: string): PathMatcher {
  let compiled: { regex: RegExp; template: string; methods: Set<string>; literal: number }[] | undefined;

  function compile() {
    const byTemplate = new Map<string, Set<string>>();
    for (const { method, path, outsideApiPrefix } of registry.operations()) {
      const template = outsideApiPrefix ? path : prefix + path;
      const methods = byTemplate.get(template) ?? new Set<string>();
      methods.add(method.toUpperCase());
      byTemplate.set(template, methods);
    }
    return [...byTemplate]
      .map(([template, methods]) => {
        if (methods.has('GET')) methods.add('HEAD');
        const source = template
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('');
        // More literal characters first: /listings/bulk is a better name than /listings/{listing_id}.
        const literal = template.replace(/\{[^}]+\}/g, '').length;
        return { regex: new RegExp(`^${source}/?$`), template, methods, literal };
      })
      .sort((a, b) => b.literal - a.literal);
  }

  return {
    match(path) {
      compiled ??= compile();
      // The most literal template wins, as in OpenAPI: /listings/status (POST) is not
      // /listings/{listing_id} (GET), so a GET to it is a 405, not a lookup of listing "status".
      const best = compiled.find((entry) => entry.regex.test(path));
      return best && { template: best.template, methods: [...best.methods].sort() };
    },
  };
}
