// The suppression rule of the market figures (docs/analytics.md, "Suppression"), shared by market
// share, velocity and seasonality. Pure functions over what the queries tell about each figure: the
// caller's own value, the market's, how many other accounts are behind it and the largest of them.
//
// Primary rule: a figure is withheld when fewer than MIN_OTHER_ACCOUNTS other accounts are behind
// it, or one of them holds more than MAX_OTHER_ACCOUNT_SHARE of the rest of the market.
// Complementary rule: where the parts of a total (neighbourhoods of a city, months of a quarter) are
// shown beside the total, the withheld parts add up to the total minus the shown ones; so the
// withheld parts together must pass the rule too, else more parts (the smallest safe ones first) or
// the total are withheld.

/** A figure needs this many other accounts behind it… */
export const MIN_OTHER_ACCOUNTS = 5;
/** …and no single other account may hold more than this share of the rest of the market. */
export const MAX_OTHER_ACCOUNT_SHARE = 0.25;

/** Who is behind one figure. */
export interface Behind {
  own: number;
  market: number;
  /** Other accounts with a non-zero value. */
  others: number;
  /** The largest other account's value. */
  topOther: number;
}

export const nobody: Behind = { own: 0, market: 0, others: 0, topOther: 0 };

/** The primary rule: true when the figure could reveal a competitor. */
export function discloses(b: Behind): boolean {
  return b.others < MIN_OTHER_ACCOUNTS || b.topOther > MAX_OTHER_ACCOUNT_SHARE * (b.market - b.own);
}

/**
 * Whether the sum of these figures can be shown. The queries say who is behind each figure, not
 * behind their sum, so the sum's facts are bounded: at least as many other accounts as the figure
 * with most, a largest other account of at most the sum of each figure's largest, and exactly the
 * sum of their rests. A sum with no other account's value in it reveals nothing.
 */
export function sumIsSafe(parts: readonly Behind[]): boolean {
  const rest = parts.reduce((sum, p) => sum + p.market - p.own, 0);
  if (rest <= 0) return true;
  const others = Math.max(0, ...parts.map((p) => p.others));
  const top = parts.reduce((sum, p) => sum + p.topOther, 0);
  return others >= MIN_OTHER_ACCOUNTS && top <= MAX_OTHER_ACCOUNT_SHARE * rest;
}

export interface Part {
  key: string;
  behind: Behind;
  /** Never shown on its own (e.g. listings without a neighbourhood): always among the withheld. */
  unpublished?: boolean;
}

/**
 * The parts to withhold so that none can be recovered from a total that is shown: the parts the
 * rule withholds, then, while their sum is not safe, the smallest remaining safe part (by market
 * figure, then key). Withholding every part is always safe (their sum is the total).
 */
export function withheldParts(parts: readonly Part[]): Set<string> {
  const primary = parts.filter((p) => p.unpublished || discloses(p.behind));
  const candidates = parts
    .filter((p) => !primary.includes(p))
    .sort((a, b) => a.behind.market - b.behind.market || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const withheld = [...primary];
  while (candidates.length && !sumIsSafe(withheld.map((p) => p.behind))) withheld.push(candidates.shift()!);
  return new Set(withheld.map((p) => p.key));
}

export interface TableDecision {
  totalShown: boolean;
  /** Keys of the parts shown; every other part is withheld. */
  shownParts: Set<string>;
}

/**
 * A total and its parts, all shown in one answer (a city and its neighbourhoods). The total is
 * withheld when the rule says so; otherwise the parts are complemented (withheldParts), unless that
 * would withhold every part only to keep the total, in which case the total is withheld instead and
 * the parts the rule allows are shown.
 */
export function decideTable(total: Behind, parts: readonly Part[]): TableDecision {
  const shownBy = (withheld: Set<string>) =>
    new Set(parts.filter((p) => !withheld.has(p.key)).map((p) => p.key));
  const primary = new Set(parts.filter((p) => p.unpublished || discloses(p.behind)).map((p) => p.key));
  if (discloses(total)) return { totalShown: false, shownParts: shownBy(primary) };
  const withheld = withheldParts(parts);
  const everyPart = parts.every((p) => withheld.has(p.key));
  if (everyPart && withheld.size > primary.size) return { totalShown: false, shownParts: shownBy(primary) };
  return { totalShown: true, shownParts: shownBy(withheld) };
}

/** The query columns of a figure `m`: own_m, market_m, others_m, top_other_m. */
export type BehindColumns<M extends string> = Record<
  `${'own' | 'market' | 'others' | 'top_other'}_${M}`,
  number
>;

export function behindOf<M extends string>(row: BehindColumns<M> | undefined, m: M): Behind {
  if (!row) return nobody;
  return {
    own: Number(row[`own_${m}`]),
    market: Number(row[`market_${m}`]),
    others: Number(row[`others_${m}`]),
    topOther: Number(row[`top_other_${m}`]),
  };
}

/** What is shown of each figure of a city and its neighbourhoods. */
export type AreaDecisions<M extends string> = Record<M, TableDecision>;

/**
 * Decides every figure `metrics` of a city (the row with is_city = 1) and its neighbourhoods (rows
 * with is_city = 0; the one named '' holds the listings without a neighbourhood and is never shown).
 */
export function decideAreas<M extends string>(
  rows: readonly (BehindColumns<M> & { is_city: number; neighbourhood: string })[],
  metrics: readonly M[],
): AreaDecisions<M> {
  const city = rows.find((r) => r.is_city === 1);
  const areas = rows.filter((r) => r.is_city === 0);
  return Object.fromEntries(
    metrics.map((m) => [
      m,
      decideTable(
        behindOf(city, m),
        areas.map((r) => ({
          key: r.neighbourhood,
          behind: behindOf(r, m),
          unpublished: r.neighbourhood === '',
        })),
      ),
    ]),
  ) as AreaDecisions<M>;
}

/** SQL of the four columns of figure `name` over `value` per account (constant text, no input). */
export function behindSelects(name: string, value: string): string {
  const own = `account = cityHash64({account:String})`;
  return `
      sumIf(${value}, ${own}) AS own_${name},
      sum(${value}) AS market_${name},
      countIf(${value} > 0 AND NOT ${own}) AS others_${name},
      maxIf(${value}, NOT ${own}) AS top_other_${name}`;
}
