// Quarters as the analytics API speaks them: `YYYY-Qn`, in UTC. A listing belongs to the quarter of
// its listed_at, a view to the quarter of its viewed_at (docs/analytics.md, "Periods").

export interface Quarter {
  year: number;
  quarter: 1 | 2 | 3 | 4;
}

// 1971 is the first year whose previous quarter (needed for trends) is still a valid DateTime.
export const MIN_YEAR = 1971;
export const MAX_YEAR = 2100;

/** The quarters the API accepts, 1971-Q1 … 2100-Q4: the `period` parameter's pattern (params.ts). */
export const PERIOD_PATTERN = '^(197[1-9]|19[89][0-9]|20[0-9]{2}|2100)-Q[1-4]$';
/** The months (YYYY-MM, same years) the seasonality's `end` accepts (params.ts). */
export const MONTH_PATTERN = '^(197[1-9]|19[89][0-9]|20[0-9]{2}|2100)-(0[1-9]|1[0-2])$';

export function quarterOf(date: Date): Quarter {
  return {
    year: date.getUTCFullYear(),
    quarter: (Math.floor(date.getUTCMonth() / 3) + 1) as Quarter['quarter'],
  };
}

export function previousQuarter(q: Quarter): Quarter {
  return q.quarter === 1
    ? { year: q.year - 1, quarter: 4 }
    : { year: q.year, quarter: (q.quarter - 1) as Quarter['quarter'] };
}

export function nextQuarter(q: Quarter): Quarter {
  return q.quarter === 4
    ? { year: q.year + 1, quarter: 1 }
    : { year: q.year, quarter: (q.quarter + 1) as Quarter['quarter'] };
}

export function periodLabel(q: Quarter): string {
  return `${q.year}-Q${q.quarter}`;
}

/** First day of the quarter as `YYYY-MM-DD`: the value of the `quarter` column of the aggregates. */
export function quarterStart(q: Quarter): string {
  return `${q.year}-${String((q.quarter - 1) * 3 + 1).padStart(2, '0')}-01`;
}
