// The dashboard's pages in one document chosen by the URL fragment (/dashboard#velocity): Market
// (the default), one page per other analytic, and Keys. GET /dashboard stays the contract's one
// page, each page can be linked, and the typed key is shared without being put anywhere else.
export const pages = ['market', 'velocity', 'seasonality', 'market-share', 'estimate', 'keys'];

/** Shows the page the fragment names (Market by default); `onChange(page)` after every switch. */
export function initTabs(onChange) {
  const apply = () => {
    const named = location.hash.slice(1);
    const current = pages.includes(named) ? named : 'market';
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
