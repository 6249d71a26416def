// The shipped cities and neighbourhoods (centres and radii), fetched once from this origin and
// shared by the pages: the city controls, the heatmap's outline, the estimate map's labels.
let loading;

export function loadLocations() {
  loading ??= fetch('/dashboard/assets/locations.json').then((response) => {
    if (!response.ok) throw new Error(`locations: HTTP ${response.status}`);
    return response.json();
  });
  return loading;
}
