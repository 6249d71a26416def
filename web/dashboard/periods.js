// The quarters the period controls offer: the current one (the default) and the seven before it.
export function quarters(count = 8, now = new Date()) {
  let year = now.getUTCFullYear();
  let quarter = Math.floor(now.getUTCMonth() / 3) + 1;
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push(`${year}-Q${quarter}`);
    quarter -= 1;
    if (quarter === 0) [year, quarter] = [year - 1, 4];
  }
  return out;
}
