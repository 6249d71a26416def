// The analytics dashboard's Market page and the document's start: the user's key (kept in this tab's sessionStorage only, sent as
// X-API-Key to this origin), GET /analytics/pricing for the summary and the chart, and
// GET /analytics/heatmap?format=geojson over the city's box for the map. Loading and error states
// come from the API's own answers (the error body's message and code). The same key drives the
// Keys page (keys.js, /dashboard#keys) and the other analytics' pages (one module each, imported
// here); tabs.js switches between them.
import { ApiError, getJson } from './api.js';
import { initKeys, leaveKeys } from './keys.js';
import { loadLocations } from './locations.js';
import { cityBounds, demandColour, drawLegend, drawMap } from './map.js';
import { quarters } from './periods.js';
import { initTabs } from './tabs.js';
import './velocity.js';
import './seasonality.js';
import './market-share.js';
import './estimate.js';

const $ = (id) => document.getElementById(id);
const tzs = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
let locations;

function setStatus(kind, text) {
  const status = $('status');
  status.className = `status ${kind}`;
  status.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  status.textContent = text;
}

function drawSummary(pricing) {
  const s = pricing.summary;
  const cards = [
    ['Median rent', s.median_price_tzs === null ? '–' : `${tzs.format(s.median_price_tzs)} TZS`],
    ['Average', s.avg_price_tzs === null ? '–' : `${tzs.format(s.avg_price_tzs)} TZS`],
    [
      'Range',
      s.min_price_tzs === null ? '–' : `${tzs.format(s.min_price_tzs)}–${tzs.format(s.max_price_tzs)}`,
    ],
    ['Listings', tzs.format(s.total_listings)],
    ['Period', pricing.period],
  ];
  $('summary').replaceChildren(
    ...cards.map(([label, value]) => {
      const card = document.createElement('div');
      card.className = 'card';
      const b = document.createElement('b');
      b.textContent = value;
      const span = document.createElement('span');
      span.textContent = label;
      card.append(b, span);
      return card;
    }),
  );
  $('summary').hidden = false;
}

function drawChart(pricing) {
  const rows = [...pricing.by_neighborhood].sort((a, b) => b.median_price - a.median_price);
  if (!rows.length) {
    const empty = document.createElement('p');
    empty.className = 'empty';
    empty.textContent = 'No listings of this type in this city and period.';
    $('chart').replaceChildren(empty);
    return;
  }
  const SVG = 'http://www.w3.org/2000/svg';
  const rowHeight = 22;
  const labelWidth = 130;
  const width = 460;
  const max = Math.max(...rows.map((r) => r.median_price));
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${rows.length * rowHeight + 4}`);
  rows.forEach((row, i) => {
    const y = i * rowHeight + 2;
    const barWidth = Math.max(2, ((width - labelWidth - 70) * row.median_price) / max);
    const add = (name, attributes, text) => {
      const node = document.createElementNS(SVG, name);
      for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
      if (text !== undefined) node.textContent = text;
      svg.append(node);
      return node;
    };
    add('text', { class: 'label', x: 0, y: y + 14 }, row.name);
    const bar = add('rect', {
      class: 'bar',
      x: labelWidth,
      y: y + 3,
      width: barWidth,
      height: rowHeight - 8,
      fill: demandColour(row.demand_score),
    });
    bar.append(document.createElementNS(SVG, 'title'));
    bar.firstChild.textContent = `${row.name}: ${tzs.format(row.median_price)} TZS, ${row.listing_count} listings, demand ${row.demand_score}, ${row.trend}`;
    add(
      'text',
      { class: 'value', x: labelWidth + barWidth + 4, y: y + 14 },
      `${tzs.format(row.median_price)} · ${row.listing_count}`,
    );
  });
  $('chart').replaceChildren(svg);
}

async function show(event) {
  event?.preventDefault();
  if (!locations) return;
  const key = $('key').value.trim();
  if (!key) return setStatus('error', 'Type an API key first.');
  sessionStorage.setItem('rls-dashboard-key', key);
  const city = locations.cities.find((c) => c.slug === $('city').value);
  const type = $('type').value;
  const period = $('period').value;
  const query = new URLSearchParams({ city: city.slug, type, period });
  const bounds = cityBounds(city)
    .map((v) => v.toFixed(5))
    .join(',');
  const heatmapQuery = new URLSearchParams({ bounds, type, period, format: 'geojson' });
  setStatus('loading', `Loading ${type} prices and demand in ${city.name}, ${period}…`);
  $('show').disabled = true;
  document.body.dataset.state = 'loading';
  try {
    const [pricing, collection] = await Promise.all([
      getJson(`/api/v1/analytics/pricing?${query}`, key),
      getJson(`/api/v1/analytics/heatmap?${heatmapQuery}`, key),
    ]);
    drawSummary(pricing);
    drawChart(pricing);
    const neighbourhoods = locations.neighbourhoods.filter((n) => n.city === city.slug);
    drawMap($('map'), { city, neighbourhoods, collection });
    drawLegend($('legend'));
    $('map-caption').textContent = `${collection.features.length} cells with listings · ${city.name}`;
    setStatus(
      'ok',
      `${pricing.city}, ${type}, ${pricing.period}: ${pricing.summary.total_listings} listings.`,
    );
    document.body.dataset.state = 'ready';
  } catch (error) {
    setStatus(
      'error',
      error instanceof ApiError ? error.message : `Could not reach the API: ${error.message}`,
    );
    document.body.dataset.state = 'error';
  } finally {
    $('show').disabled = false;
  }
}

async function init() {
  // Before anything is awaited: the form must never submit itself (a native GET would put the key
  // in the URL). Show stays disabled until the locations are in.
  $('controls').addEventListener('submit', show);
  // The key field is outside both pages' forms: Enter runs the shown page's main action.
  $('key').addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const page = document.body.dataset.page;
    if (page === 'keys') $('keys-load').click();
    else if (page === 'market') $('controls').requestSubmit();
    else $(`${page}-controls`).requestSubmit();
  });
  initKeys();
  initTabs((page) => {
    if (page !== 'keys') leaveKeys(); // the one-time plaintext never outlives the Keys page
  });
  try {
    locations = await loadLocations();
  } catch (error) {
    setStatus('error', `Could not load the locations: ${error.message}`);
    return;
  }
  // Every page's city and period controls; the first option (Dar es Salaam, the current quarter)
  // is each one's default.
  for (const select of document.querySelectorAll('select[name="city"]')) {
    for (const city of locations.cities) select.append(new Option(city.name, city.slug));
  }
  for (const select of document.querySelectorAll('select[name="period"]')) {
    for (const label of quarters(8)) select.append(new Option(label, label));
  }
  $('key').value = sessionStorage.getItem('rls-dashboard-key') ?? '';
  for (const button of document.querySelectorAll('button[data-action="show"]')) button.disabled = false;
  document.body.dataset.state = 'idle';
}

init();
