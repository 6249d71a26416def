// What every analytic page shares: its Show button (data-action="show") reads the page's controls
// and the key typed in #key, sets loading, then ready (figures drawn) or error (the API's message,
// role="alert") in document.body.dataset.state and the page's status line; an answer with nothing
// to draw is the empty state (still ready: the API answered).
import { failure } from './api.js';
import { $, setStatus } from './dom.js';

/**
 * `page.load(key, form)` fetches (throws ApiError when the API refuses), `page.draw(answer)` draws
 * and returns the status line's text, `page.empty(answer)` says why there is nothing to draw (or
 * nothing when there is).
 */
export function initAnalyticPage(name, page) {
  const form = $(`${name}-controls`);
  const button = form.querySelector('button[data-action="show"]');
  const status = `${name}-status`;
  const output = $(`${name}-output`);
  const summary = $(`${name}-summary`);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = $('key').value.trim();
    if (!key) {
      setStatus(status, 'error', 'Type an API key first (analytics tiers: business, enterprise).');
      document.body.dataset.state = 'error';
      return;
    }
    sessionStorage.setItem('rls-dashboard-key', key);
    button.disabled = true;
    // Nothing of the previous answer stays beside the new state.
    output.hidden = true;
    summary.hidden = true;
    document.body.dataset.state = 'loading';
    setStatus(status, 'loading', page.loading(form));
    try {
      const answer = await page.load(key, form);
      const why = page.empty(answer);
      if (why) {
        setStatus(status, 'empty', why);
      } else {
        setStatus(status, 'ok', page.draw(answer)); // draw() fills and shows the summary
        output.hidden = false;
      }
      document.body.dataset.state = 'ready';
    } catch (error) {
      setStatus(status, 'error', failure(error));
      document.body.dataset.state = 'error';
    } finally {
      button.disabled = false;
    }
  });
}

/** The form's controls as query parameters (named by their name attribute), empty ones left out. */
export function queryOf(form) {
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (String(value).trim() !== '') query.set(name, String(value).trim());
  }
  return query;
}
