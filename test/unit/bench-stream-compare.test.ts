// bench:stream's side-by-side table of our pipeline and the peer's: which processes each CPU row
// sums, the ours ÷ peer ratio, and the rows printed.
import { describe, expect, it } from 'vitest';
import {
  cpuOf,
  pickPaced,
  ratio,
  sideBySide,
  summaryLine,
  type PipelineFigures,
} from '../../bench/stream-compare.ts';
import { highestPacedRate } from '../../bench/stream-load.ts';

const ours: PipelineFigures = {
  acceptedPerSecond: 12_700,
  storedPerSecond: 12_500,
  cpuByProcess: {
    'gateway (API)': 40,
    'stream worker': 25,
    'image process': 2,
    clickhouse: 0.5,
    'clickhouse (child 123)': 20,
    kafka: 8,
    redis: 10,
    'load generator (this process)': 30,
  },
  cpuTotal: 105.5,
  fullLoad: { p50: 300, p95: 570 },
  paced: { listingsPerSecond: 6_000, p50: 200, p95: 400 },
};
const peer: PipelineFigures = {
  acceptedPerSecond: 34_100,
  storedPerSecond: 7_000,
  cpuByProcess: {
    'peer API': 20,
    'peer consumer': 15,
    clickhouse: 0,
    'clickhouse (child 123)': 10,
    kafka: 5,
  },
  cpuTotal: 50,
  fullLoad: { p50: 20_000, p95: 50_000 },
  paced: { listingsPerSecond: 6_000, p50: 1_050, p95: 1_800 },
};

describe('bench:stream ours vs peer', () => {
  it('sums a process and its children into one CPU row, and has none for a process the pipeline lacks', () => {
    expect(cpuOf(ours.cpuByProcess, ['clickhouse'])).toBe(20.5);
    expect(cpuOf(peer.cpuByProcess, ['peer consumer'])).toBe(15);
    expect(cpuOf(peer.cpuByProcess, [])).toBeUndefined();
    expect(cpuOf(peer.cpuByProcess, ['redis'])).toBeUndefined();
  });

  it('divides ours by the peer, and shows a dash rather than Infinity or NaN', () => {
    expect(ratio(12_500, 7_000)).toBe('1.79');
    expect(ratio(1, 0)).toBe('—');
    expect(ratio(undefined, 5)).toBe('—');
    expect(ratio(Number.NaN, 5)).toBe('—');
  });

  it('prints each figure of both pipelines with ours ÷ peer on one row', () => {
    const lines = sideBySide(ours, peer);
    const row = (label: string) =>
      lines
        .find((l) => l.trimStart().startsWith(label))
        ?.trim()
        .split(/\s{2,}/);
    expect(row('accepted listings/s')).toEqual(['accepted listings/s', '12700', '34100', '0.37']);
    expect(row('stored listings/s (load + drain)')).toEqual([
      'stored listings/s (load + drain)',
      '12500',
      '7000',
      '1.79',
    ]);
    expect(row('CPU µs/stored listing: API process')).toEqual([
      'CPU µs/stored listing: API process',
      '40.0',
      '20.0',
      '2.00',
    ]);
    expect(row('CPU µs/stored listing: ClickHouse')).toEqual([
      'CPU µs/stored listing: ClickHouse',
      '20.5',
      '10.0',
      '2.05',
    ]);
    expect(row('CPU µs/stored listing: Redis')).toEqual(['CPU µs/stored listing: Redis', '10.0', '—', '—']);
    expect(row('CPU µs/stored listing: total')).toEqual([
      'CPU µs/stored listing: total',
      '105.5',
      '50.0',
      '2.11',
    ]);
    expect(row('freshness p95 at full load (ms)')).toEqual([
      'freshness p95 at full load (ms)',
      '570',
      '50000',
      '0.01',
    ]);
    expect(row('freshness p95 paced at 6000 listings/s (ms)')).toEqual([
      'freshness p95 paced at 6000 listings/s (ms)',
      '400',
      '1800',
      '0.22',
    ]);
    expect(lines.some((l) => l.includes('this process'))).toBe(false);
  });

  it('names both rates when the pipelines were paced differently, and leaves the paced rows out when one was not', () => {
    const slower = { ...peer, paced: { listingsPerSecond: 3_500, p50: 900, p95: 1_000 } };
    expect(sideBySide(ours, slower).some((l) => l.includes('paced at 6000 / 3500 listings/s'))).toBe(true);
    const { paced: _paced, ...unpaced } = peer;
    expect(sideBySide(ours, unpaced).some((l) => l.includes('paced'))).toBe(false);
  });
});

describe('bench:stream paced search', () => {
  const freshness = (p95: number, completed = 10) => ({ p50: p95 / 2, p95, max: p95, completed, posted: 10 });

  it('keeps the highest rate tried before freshness p95 first exceeds 1 s', async () => {
    const tried: number[] = [];
    const best = await highestPacedRate(async (rate) => {
      tried.push(rate);
      return freshness(rate <= 6_000 ? 800 : 1_200);
    }, 10_000);
    expect(tried).toEqual([3_000, 4_500, 6_000, 7_500]);
    expect(best).toBe(6_000);
  });

  it('counts a rate whose requests were not all stored as failed, and has no rate when the lowest fails', async () => {
    expect(await highestPacedRate(async () => freshness(100, 9), 10_000)).toBeUndefined();
    expect(await highestPacedRate(async () => freshness(Number.NaN), 10_000)).toBeUndefined();
  });

  it('prints the highest rate of each next to the other when both searched', () => {
    const lines = sideBySide({ ...ours, highestPacedRate: 9_000 }, { ...peer, highestPacedRate: Number.NaN });
    const row = lines
      .find((l) => l.includes('highest paced'))
      ?.trim()
      .split(/\s{2,}/);
    expect(row).toEqual(['highest paced listings/s, freshness p95 ≤ 1 s', '9000', '—', '—']);
    expect(sideBySide(ours, peer).some((l) => l.includes('highest paced'))).toBe(false);
  });
});

describe('bench:stream at the highest paced rate, and the run summary', () => {
  const best = { acceptedPerSecond: 8_950, storedPerSecond: 8_900, p50: 350, p95: 800 };
  it('prints accepted and stored listings/s and freshness at the highest paced rate of each', () => {
    const lines = sideBySide(
      { ...ours, highestPacedRate: 9_000, highestPaced: best },
      { ...peer, highestPacedRate: Number.NaN },
    );
    const row = (label: string) =>
      lines
        .find((l) => l.trimStart().startsWith(label))
        ?.trim()
        .split(/\s{2,}/);
    expect(row('at that rate: accepted listings/s')).toEqual([
      'at that rate: accepted listings/s',
      '8950',
      '—',
      '—',
    ]);
    expect(row('at that rate: stored listings/s (paced + drain)')?.slice(1)).toEqual(['8900', '—', '—']);
    expect(row('at that rate: freshness p95 (ms)')?.slice(1)).toEqual(['800', '—', '—']);
  });

  it('keeps only the figures of the phase it names', () => {
    expect(pickPaced({ ...best, ...{ listingsPerSecond: 9_000, max: 1_200 } })).toEqual(best);
  });

  it('prints one line of JSON with both pipelines and ours ÷ peer, NaN as null', () => {
    const line = summaryLine({ ours: { ...ours, highestPacedRate: Number.NaN }, peer });
    expect(line.startsWith('BENCH_SUMMARY {')).toBe(true);
    expect(line.includes('\n')).toBe(false);
    const json = JSON.parse(line.slice('BENCH_SUMMARY '.length)) as Record<string, Record<string, unknown>>;
    expect(json.ours!.storedPerSecond).toBe(12_500);
    expect(json.ours!.highestPacedRate).toBeNull();
    expect(json.peer!.cpuTotal).toBe(50);
    expect(json.oursPerPeer).toEqual({
      acceptedPerSecond: '0.37',
      storedPerSecond: '1.79',
      cpuTotal: '2.11',
      highestPacedRate: '—',
    });
    const alone = JSON.parse(summaryLine({ ours }).slice('BENCH_SUMMARY '.length)) as Record<string, unknown>;
    expect(Object.keys(alone)).toEqual(['ours']);
  });
});
