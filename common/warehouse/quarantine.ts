// `quarantine`: messages (or single listings of a message) the stream could not store (0002).
import { defineTable, type DateTimeText, type Provenance } from './table.ts';

export type QuarantineRow = Provenance & {
  quarantined_at: DateTimeText;
  source: string;
  error: string;
  /** The original message bytes as text (a single bad listing as a standalone v1 message). */
  payload: string;
};

export const quarantineTable = defineTable<QuarantineRow>()('quarantine', [
  'quarantined_at',
  'source',
  'error',
  'payload',
  '_topic',
  '_partition',
  '_offset',
  '_item',
]);
