// "Recent key changes" on the Keys page: GET /api/v1/keys/audit, the account's own rows of
// key_audit_events (the API scopes them to the typed admin key's account, and a test admin key to
// test keys). A change reaches the warehouse a moment after it is made, so the list is read again
// shortly after each change, and has a Refresh button.
import { apiJson, failure } from './api.js';
import { $, row, setStatus, when } from './dom.js';

const labels = { create: 'created', roll: 'rolled', revoke: 'revoked' };

function detail(event) {
  if (event.action !== 'roll') return '';
  return `replaced by ${event.new_key_id}; the old key works until ${when(event.expires_at)}`;
}

function render(events) {
  const rows = events.map((event) =>
    row(
      [
        when(event.occurred_at),
        labels[event.action] ?? event.action,
        `${event.key_prefix} ${event.key_name ? `“${event.key_name}”` : ''}`.trim(),
        `${event.mode} · ${event.tier} · ${event.role}`,
        event.source === 'cli' ? 'the operator (CLI)' : (event.actor_key_id ?? '–'),
        event.client_ip ?? '–',
        detail(event),
      ],
      { 'data-action': event.action, 'data-key-id': event.key_id },
    ),
  );
  $('audit-rows').replaceChildren(...rows);
}

export function clearAudit() {
  $('audit-rows').replaceChildren();
  setStatus('audit-status', 'idle', '');
}

export async function loadAudit(key) {
  setStatus('audit-status', 'loading', 'Loading recent key changes…');
  try {
    const { events } = await apiJson('GET', '/api/v1/keys/audit', key);
    render(events);
    setStatus(
      'audit-status',
      'ok',
      events.length
        ? `The newest ${events.length} changes, newest first. A new change appears within seconds.`
        : 'No key changes recorded yet. A new change appears within seconds.',
    );
  } catch (error) {
    setStatus('audit-status', 'error', `Recent key changes: ${failure(error)}`);
  }
}

/** Reads the list now and once more when the change has surely been copied to the warehouse. */
export function reloadAuditAfterChange(key) {
  loadAudit(key);
  // Not if the user has typed another key since: that would show this key's account again.
  setTimeout(() => $('key').value.trim() === key && loadAudit(key), 2_000);
}
