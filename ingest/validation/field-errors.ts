// Turns zod issues into the stable, documented per-field errors of the ingest API
// (docs/ingest.md, "Per-listing error codes (stable)"). Clients branch on `code`; `message` is for humans.
import type { z } from 'zod';
import { NOT_WELL_FORMED_MESSAGE } from '../../common/domain/text.ts';

export interface FieldError {
  /** Dotted path inside the item, e.g. `images.3`; empty for the item itself. */
  field: string;
  code: string;
  message: string;
}

const formatCodes: Record<string, string> = {
  url: 'invalid_url',
  uuid: 'invalid_uuid',
  e164: 'invalid_phone_number',
  datetime: 'invalid_datetime',
  regex: 'invalid_format',
};

/** `input` is the validated value, used to tell a missing field from a mistyped one. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], input: unknown): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const field = issue.path.join('.');
    const label = field || 'item';
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const path = field ? `${field}.${key}` : key;
          out.push({ field: path, code: 'unknown_field', message: `${path} is not a known field` });
        }
        break;
      case 'invalid_type':
        if (valueAt(input, issue.path) === undefined) {
          out.push({ field, code: 'required', message: `${label} is required` });
        } else if (issue.expected === 'int') {
          out.push({ field, code: 'not_integer', message: `${label} must be a whole number` });
        } else {
          out.push({ field, code: 'invalid_type', message: `${label}: ${issue.message}` });
        }
        break;
      case 'too_big':
        out.push({
          field,
          code:
            issue.origin === 'string'
              ? 'too_long'
              : issue.origin === 'array'
                ? 'too_many_items'
                : 'out_of_range',
          message: `${label} must be at most ${String(issue.maximum)}${unit(issue.origin)}`,
        });
        break;
      case 'too_small':
        if (issue.origin === 'string') {
          out.push({ field, code: 'empty', message: `${label} must not be empty` });
        } else if (issue.origin === 'number' && issue.minimum === 0 && !issue.inclusive) {
          out.push({ field, code: 'not_positive', message: `${label} must be greater than 0` });
        } else {
          out.push({
            field,
            code: issue.origin === 'array' ? 'too_few_items' : 'out_of_range',
            message: `${label} must be at least ${String(issue.minimum)}${unit(issue.origin)}`,
          });
        }
        break;
      case 'invalid_format': {
        const code = formatCodes[issue.format] ?? 'invalid_format';
        out.push({ field, code, message: `${label}: ${formatHint(code, issue.message)}` });
        break;
      }
      case 'invalid_value':
        out.push({
          field,
          code: 'invalid_enum',
          message: `${label} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`,
        });
        break;
      case 'custom': {
        const code = String((issue.params as { code?: string } | undefined)?.code ?? 'invalid');
        // The shared text check (common/domain/text.ts) cannot know the field's name: prefix it.
        const message =
          issue.message === NOT_WELL_FORMED_MESSAGE ? `${label} ${issue.message}` : issue.message;
        out.push({ field, code, message });
        break;
      }
      default:
        out.push({ field, code: 'invalid', message: `${label}: ${issue.message}` });
    }
  }
  return out;
}

function unit(origin: string): string {
  return origin === 'string' ? ' characters' : origin === 'array' ? ' items' : '';
}

function formatHint(code: string, fallback: string): string {
  switch (code) {
    case 'invalid_url':
      return 'must be an absolute http:// or https:// URL with a host name or IP address';
    case 'invalid_uuid':
      return 'must be a UUID';
    case 'invalid_phone_number':
      return 'must be an E.164 phone number such as +255712345678';
    case 'invalid_datetime':
      return 'must be an ISO-8601 date-time with a time zone, e.g. 2025-01-31T09:00:00Z';
    default:
      return fallback;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
