// The query string of an analytics route as one zod object: parseQuery validates a request with it,
// z.output gives its type and the OpenAPI document lists its keys as the route's query parameters
// (common/openapi/registry.ts, `query`). Every failure is a 400 invalid_parameter that names each
// failing parameter, in the order of the object's keys, with the allowed values of an enumeration.
import { z } from 'zod';
import { AppError } from '../common/errors.ts';

export interface Problem {
  parameter: string;
  message: string;
  allowed?: readonly string[];
}

export function failParameters(problems: Problem[]): never {
  throw new AppError('invalid_parameter', problems.map((p) => p.message).join('; '), { details: problems });
}

export function parseQuery<S extends z.ZodObject>(schema: S, query: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const problems = new Map<string, Problem>();
  for (const issue of parsed.error.issues) {
    const parameter = String(issue.path[0]);
    // One problem per parameter, as its first check words it.
    if (problems.has(parameter)) continue;
    problems.set(parameter, {
      parameter,
      message: issue.message,
      ...(issue.code === 'invalid_value' ? { allowed: issue.values as string[] } : {}),
    });
  }
  failParameters([...problems.values()]);
}

/** One of `values`; absent is "name is required" unless the field is made optional. */
export function choice<const T extends readonly string[]>(name: string, values: T) {
  return z.enum(values, {
    error: (issue) => (issue.input === undefined ? `${name} is required` : `unknown ${name}`),
  });
}

/**
 * A number written as `pattern` allows, within min–max: the document shows the number and its
 * range, the server reads the string (anything else is the one message naming the range).
 */
export function numberParam(
  name: string,
  rule: { pattern: RegExp; min: number; max: number; what: string; integer?: boolean },
) {
  const message = `${name} must be ${rule.what} from ${rule.min} to ${rule.max}`;
  const range = z
    .number({ error: (issue) => (issue.input === undefined ? `${name} is required` : message) })
    .min(rule.min, { error: message })
    .max(rule.max, { error: message });
  const number = rule.integer ? range.int({ error: message }) : range;
  return z.preprocess(
    (raw) =>
      raw === undefined ? raw : typeof raw === 'string' && rule.pattern.test(raw) ? Number(raw) : NaN,
    number,
  );
}
