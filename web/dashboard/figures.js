// Text around the charts of the analytic pages: summary cards, the table under each chart (its
// text alternative: every figure drawn is also written there) and number formats. Server strings
// go in as textContent only.
import { el } from './dom.js';

export const count = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
export const num = (v) => (v === null || v === undefined ? '–' : decimal.format(v));
export const days = (v) => (v === null || v === undefined ? '–' : `${decimal.format(v)} d`);
export const pct = (v) => (v === null || v === undefined ? '–' : `${decimal.format(v * 100)} %`);
export const money = (v, currency = 'TZS') =>
  v === null || v === undefined ? '–' : `${count.format(v)} ${currency}`;

/** Cards of [label, value] pairs into `container` (shown). */
export function cards(container, items) {
  container.replaceChildren(
    ...items.map(([label, value]) => el('div', [el('b', value), el('span', label)], { class: 'card' })),
  );
  container.hidden = false;
}

/** A table of `rows` (arrays of strings) under `headers`, with a caption naming what it holds. */
export function table(caption, headers, rows) {
  return el(
    'table',
    [
      el('caption', caption),
      el('thead', [
        el(
          'tr',
          headers.map((h) => el('th', h, { scope: 'col' })),
        ),
      ]),
      el(
        'tbody',
        rows.map((cells) =>
          el(
            'tr',
            cells.map((c, i) => (i === 0 ? el('th', c, { scope: 'row' }) : el('td', c))),
          ),
        ),
      ),
    ],
    { class: 'grid figures' },
  );
}

/** The empty state of a panel: a sentence in place of a chart and its table. */
export const emptyNote = (text) => el('p', text, { class: 'empty' });

/** A legend of coloured swatches: [label, className] pairs. */
export function legend(items) {
  return el(
    'p',
    items.flatMap(([label, className]) => [el('i', '', { class: className, 'aria-hidden': 'true' }), label]),
    { class: 'legend' },
  );
}
