// Small DOM helpers of the dashboard's pages. Every server string goes in as textContent, never as HTML, so
// a key name like "<img onerror=…>" shows as those characters.
export const $ = (id) => document.getElementById(id);

/** An element with text (or child nodes) and attributes. */
export function el(tag, content = '', attributes = {}) {
  const node = document.createElement(tag);
  if (typeof content === 'string') node.textContent = content;
  else node.append(...content);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** A table row of text cells (strings) and ready nodes. */
export function row(cells, attributes = {}) {
  return el(
    'tr',
    cells.map((cell) => (typeof cell === 'string' ? el('td', cell) : el('td', [cell]))),
    attributes,
  );
}

/** An API time (ISO 8601, UTC) as "2026-11-23 21:51 UTC"; "–" for none. */
export function when(iso) {
  if (!iso) return '–';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?/.exec(iso);
  return match ? `${match[1]} ${match[2]}${match[3] ?? ''} UTC` : iso;
}

export function setStatus(id, kind, text) {
  const status = $(id);
  status.className = `status ${kind}`;
  status.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  status.textContent = text;
}
