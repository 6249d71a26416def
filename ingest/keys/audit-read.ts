// GET /keys/audit: the acting admin key's account's recent key changes, read from key_audit_events
// (docs/auth.md, "Audit of key changes"), for the dashboard's Keys page. The same scope as the key
// list: the key's own account only (the table's sort key starts with account_id), and a test admin
// key sees only changes of test keys, as it sees only test keys.
//
// Events reach ClickHouse from the Redis outbox right after each change (key-audit-flush.ts), so a
// change shows here a moment later; while ClickHouse is down this answers 503 and key management
// itself keeps working.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { dependencyUnavailable } from '../../common/errors.ts';
import { keyAuditEventsTable } from '../../common/warehouse/key-audit-events.ts';
import { defineQuery } from '../../common/warehouse/query.ts';
import { keyAuditEventSchema, type KeyAuditEventBody } from './schemas.ts';
import { managedModes } from './service.ts';

/** Newest events answered; older ones stay in the warehouse (docs/auth.md has the SQL). */
export const KEY_AUDIT_PAGE = 100;

// occurred_at is stored to the second: within one second, revoke after roll after create (the enum
// order) is the order one key's changes can happen in.
const auditQuery = defineQuery({
  name: 'key_audit_page',
  params: z.object({ account: z.string(), modes: z.array(z.string()), limit: z.number().int() }),
  row: keyAuditEventSchema,
  sql: `
  SELECT toString(event_id) AS event_id,
         formatDateTime(occurred_at, '%Y-%m-%dT%H:%i:%SZ') AS occurred_at,
         action, source, nullIf(actor_key_id, '') AS actor_key_id, nullIf(client_ip, '') AS client_ip,
         nullIf(request_id, '') AS request_id, key_id, key_prefix, key_name, mode, tier, role,
         nullIf(new_key_id, '') AS new_key_id,
         if(isNull(expires_at), NULL, formatDateTime(assumeNotNull(expires_at), '%Y-%m-%dT%H:%i:%SZ')) AS expires_at
  FROM ${keyAuditEventsTable.name}
  WHERE account_id = {account:String} AND toString(mode) IN {modes:Array(String)}
  ORDER BY occurred_at DESC, action DESC, event_id
  LIMIT {limit:UInt32}`,
});

export async function readKeyAudit(
  clickhouse: ClickHouseClient,
  admin: ApiKeyRecord,
): Promise<KeyAuditEventBody[]> {
  try {
    const { rows } = await auditQuery.run(clickhouse, {
      account: admin.account_id,
      modes: managedModes(admin),
      limit: KEY_AUDIT_PAGE,
    });
    return rows;
  } catch (error) {
    throw dependencyUnavailable('clickhouse', error);
  }
}
