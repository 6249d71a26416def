// The Keys page (/dashboard#keys): an admin key, typed by the user, manages its account's keys
// through the keys API (docs/auth.md, "Managing keys over the API"): list, create, roll, revoke,
// and the recent changes (key-audit.js). New plaintext keys go only to one-time-key.js. The page's
// state (idle, loading, ready, error) is in data-state of #page-keys, for the browser test.
import { apiJson, ApiError, failure } from './api.js';
import { $, el, row, setStatus, when } from './dom.js';
import { clearAudit, loadAudit, reloadAuditAfterChange } from './key-audit.js';
import { clearOnce, initOneTimeKey, showOnce } from './one-time-key.js';

function setState(state) {
  $('page-keys').dataset.state = state;
  for (const button of document.querySelectorAll('#page-keys button.api')) {
    button.disabled = state === 'loading';
  }
}

function typedKey() {
  const key = $('key').value.trim();
  if (!key) {
    setStatus('keys-status', 'error', 'Type an API key with the admin role first.');
    return undefined;
  }
  sessionStorage.setItem('rls-dashboard-key', key);
  return key;
}

/** The status line for a refused list: say plainly which key the page needs. */
function listFailure(error) {
  if (error instanceof ApiError && error.status === 403 && error.code === 'insufficient_role') {
    return (
      'This key cannot manage keys: only a key with the admin role can list, create, roll and ' +
      `revoke keys. Type an admin key of the account. The API answered: ${error.message}`
    );
  }
  if (error instanceof ApiError && error.status === 404) {
    return (
      'This server does not serve the keys API: open the dashboard on the gateway, which serves ' +
      `both APIs. The API answered: ${error.message}`
    );
  }
  return failure(error);
}

function actions(record) {
  const buttons = [];
  if (record.status === 'active' && !record.replaced_by) {
    buttons.push(el('button', 'Roll', { type: 'button', class: 'api small', 'data-act': 'roll' }));
  }
  if (record.status === 'active') {
    buttons.push(el('button', 'Revoke', { type: 'button', class: 'api small danger', 'data-act': 'revoke' }));
  }
  return el('span', buttons, { class: 'actions' });
}

function statusText(record) {
  if (record.status === 'active' && record.expires_at) return `active until ${when(record.expires_at)}`;
  return record.status;
}

function render(keys) {
  const rows = keys.map((record) => {
    const tr = row(
      [
        el('code', record.prefix),
        record.name || '–',
        record.mode,
        record.tier,
        record.role,
        statusText(record),
        when(record.created_at),
        when(record.last_used_at),
        actions(record),
      ],
      { 'data-key-id': record.id, 'data-status': record.status },
    );
    tr.querySelector('[data-act="roll"]')?.addEventListener('click', () => roll(record));
    tr.querySelector('[data-act="revoke"]')?.addEventListener('click', () => revoke(record));
    return tr;
  });
  $('keys-rows').replaceChildren(...rows);
}

async function loadKeys(key) {
  const { keys } = await apiJson('GET', '/api/v1/keys', key);
  render(keys);
  return keys;
}

async function load() {
  const key = typedKey();
  if (!key) return;
  setState('loading');
  setStatus('keys-status', 'loading', 'Loading the keys of this account…');
  try {
    const keys = await loadKeys(key);
    $('keys-admin').hidden = false;
    setStatus('keys-status', 'ok', `${keys.length} keys in this account (the plaintext of none is kept).`);
    setState('ready');
    loadAudit(key);
  } catch (error) {
    $('keys-admin').hidden = true;
    setStatus('keys-status', 'error', listFailure(error));
    setState('error');
  }
}

/**
 * Runs one change (create, roll, revoke): `call(key)` sends it, `done(answer)` shows its outcome
 * (the one-time box) and returns the status text; then the list and the changes are read again.
 * The answer is shown even when that re-read fails: a plaintext key must never be lost to it.
 */
async function change(describe, call, done) {
  const key = typedKey();
  if (!key) return;
  clearOnce(); // a new change: the previous plaintext has had its chance
  setState('loading');
  setStatus('keys-status', 'loading', `${describe}…`);
  let text;
  try {
    text = done(await call(key));
  } catch (error) {
    setStatus('keys-status', 'error', `${describe}: ${failure(error)}`);
    setState('error');
    return;
  }
  try {
    await loadKeys(key);
    setStatus('keys-status', 'ok', text);
    setState('ready');
  } catch (error) {
    setStatus('keys-status', 'error', `${text} Reading the list again failed: ${failure(error)}`);
    setState('error');
  }
  reloadAuditAfterChange(key);
}

async function create(event) {
  event.preventDefault();
  const body = { mode: $('new-mode').value, role: $('new-role').value };
  const name = $('new-name').value.trim();
  if (name) body.name = name;
  if ($('new-tier').value) body.tier = $('new-tier').value;
  await change(
    'Creating a key',
    (key) => apiJson('POST', '/api/v1/keys', key, body),
    (created) => {
      showOnce(created.key, `New ${created.mode} ${created.tier} ${created.role} key ${created.id}.`);
      $('key-create').reset();
      return `Created ${created.prefix} — copy it from the box below now.`;
    },
  );
}

async function roll(record) {
  const hours = Number($('roll-hours').value);
  if (!(hours > 0 && hours <= 168)) {
    setStatus('keys-status', 'error', 'The grace period is more than 0 and at most 168 hours.');
    return;
  }
  if (!confirm(`Roll ${record.prefix}? A new key replaces it; the old one works for ${hours} more hours.`)) {
    return;
  }
  await change(
    `Rolling ${record.prefix}`,
    (key) =>
      apiJson('POST', `/api/v1/keys/${encodeURIComponent(record.id)}/roll`, key, {
        expires_in_hours: hours,
      }),
    (rolled) => {
      showOnce(
        rolled.key,
        `New key ${rolled.id}, replacing ${record.prefix}, which works until ${when(rolled.replaces.expires_at)}.`,
      );
      return `Rolled ${record.prefix} — copy the new key from the box below now.`;
    },
  );
}

async function revoke(record) {
  if (!confirm(`Revoke ${record.prefix}? It is refused from its next request on.`)) return;
  await change(
    `Revoking ${record.prefix}`,
    (key) => apiJson('DELETE', `/api/v1/keys/${encodeURIComponent(record.id)}`, key),
    () => `Revoked ${record.prefix}.`,
  );
}

/** Leaving the Keys page forgets the one-time plaintext. */
export const leaveKeys = clearOnce;

export function initKeys() {
  initOneTimeKey();
  $('keys-load').addEventListener('click', load);
  $('audit-refresh').addEventListener('click', () => {
    const key = typedKey();
    if (key) loadAudit(key);
  });
  $('key-create').addEventListener('submit', create);
  // Another key may be another account: nothing of the previous one stays on the page.
  $('key').addEventListener('input', () => {
    clearOnce();
    clearAudit();
    $('keys-rows').replaceChildren();
    $('keys-admin').hidden = true;
    setStatus('keys-status', 'idle', 'Press Load keys to manage the keys of this key’s account.');
    setState('idle');
  });
  setState('idle');
}
