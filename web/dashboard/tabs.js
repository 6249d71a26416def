// The dashboard's two pages, Market (analytics) and Keys, in one document chosen by the URL
// fragment (/dashboard#keys): GET /dashboard stays the contract's one page, each page can be
// linked, and the typed key is shared without being put anywhere else.
const pages = ['market', 'keys'];

/** Shows the page the fragment names (Market by default); `onChange(page)` after every switch. */
export function initTabs(onChange) {
  const apply = () => {
    const current = location.hash === '#keys' ? 'keys' : 'market';
    for (const name of pages) {
      document.getElementById(`page-${name}`).hidden = name !== current;
      const tab = document.querySelector(`[data-tab="${name}"]`);
      if (name === current) tab.setAttribute('aria-current', 'page');
      else tab.removeAttribute('aria-current');
    }
    document.body.dataset.page = current;
    onChange(current);
  };
  window.addEventListener('hashchange', apply);
  apply();
}
