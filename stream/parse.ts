// Kafka message bytes → a validated message, or the reason it is poison (for the quarantine).
import type { KafkaMessage } from 'kafkajs';
import type { z } from 'zod';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseJson(message: KafkaMessage): Parsed<unknown> {
  try {
    return { ok: true, value: JSON.parse(message.value?.toString('utf8') ?? '') };
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
}

export function validate<S extends z.ZodType>(schema: S, json: unknown): Parsed<z.infer<S>> {
  const result = schema.safeParse(json);
  if (!result.success) {
    return {
      ok: false,
      error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, value: result.data };
}

export function parseMessage<S extends z.ZodType>(schema: S, message: KafkaMessage): Parsed<z.infer<S>> {
  const json = parseJson(message);
  return json.ok ? validate(schema, json.value) : json;
}
