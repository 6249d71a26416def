// A message of rls.listing-status.v1 → its items, each validated on its own (common/domain/lifecycle.ts).
// A message that is not JSON or whose envelope is invalid is one bad item 0; a bad item of a valid
// message is bad alone, quarantined as a standalone one-item message that can be fixed and replayed.
import type { KafkaMessage } from 'kafkajs';
import {
  seenItemSchema,
  statusItemSchema,
  statusMessageSchema,
  type SeenItem,
  type StatusItem,
  type StatusMessage,
} from '../../common/domain/lifecycle.ts';
import { parseJson, validate } from '../parse.ts';

export type DecodedStatusItem =
  | { item: number; ok: true; head: StatusMessage; kind: 'status'; value: StatusItem }
  | { item: number; ok: true; head: StatusMessage; kind: 'seen'; value: SeenItem }
  | { item: number; ok: false; error: string; payload: string | Buffer | null };

export function decodeStatusMessage(message: KafkaMessage): DecodedStatusItem[] {
  const whole = (error: string): DecodedStatusItem => ({ item: 0, ok: false, error, payload: message.value });
  const json = parseJson(message);
  if (!json.ok) return [whole(json.error)];
  const envelope = validate(statusMessageSchema, json.value);
  if (!envelope.ok) return [whole(envelope.error)];
  const { items, ...head } = envelope.value;
  return items.map((raw, item): DecodedStatusItem => {
    if (head.kind === 'seen') {
      const parsed = validate(seenItemSchema, raw);
      if (parsed.ok) return { item, ok: true, head, kind: 'seen', value: parsed.value };
      return { item, ok: false, error: parsed.error, payload: JSON.stringify({ ...head, items: [raw] }) };
    }
    const parsed = validate(statusItemSchema, raw);
    if (parsed.ok) return { item, ok: true, head, kind: 'status', value: parsed.value };
    return { item, ok: false, error: parsed.error, payload: JSON.stringify({ ...head, items: [raw] }) };
  });
}
