// bench:check's reading of the benchmarks' printouts and of the figures recorded in bench/recorded.json.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFigures } from '../../bench/check-figures.ts';
import { readRecorded, readRecordedFile, verdict } from '../../bench/check-recorded.ts';

const ingestOut = `POST /api/v1/listings/bulk       10890 listings/s    108.9 req/s   p50  119.6 ms   p99  484.8 ms   errors 0
CPU per process over 10.0 s and 109200 listings (/proc utime+stime, 10 ms resolution):
  process                         CPU s  cores  µs/listing
  gateway (API)                    3.93   0.39        36.0
  redis                            1.11   0.11        10.2
  total                            6.08   0.61        55.7
reference / baseline: 32.4 %; service / reference: 12.0 % (goal ≥ 50 %)
API CPU per accepted listing: 36.0 µs; reference 8.0 µs; baseline 1.9 µs
`;

describe('bench:check', () => {
  it('happy: reads the same-run ratio and µs per listing from the ingest printout', () => {
    const figures = Object.fromEntries(parseFigures('ingest', ingestOut).map((f) => [f.name, f.value]));
    expect(figures).toEqual({
      'ingest: API µs per accepted listing': 36,
      'ingest: API CPU / Express + zod CPU, same run': 4.5,
      'ingest: API listings/s / Express + zod, same run (%)': 12,
      'ingest: Redis µs per accepted listing': 10.2,
    });
  });

  it('error: refuses a printout that lacks a figure instead of comparing nothing', () => {
    expect(() => parseFigures('ingest', 'no figures here')).toThrow(/not found/);
  });

  it('happy: flags only what is worse than the worst recorded value by more than the spread', () => {
    const recorded = { low: 30, high: 34 };
    const lower = (value: number) => verdict({ name: 'x', value, better: 'lower' }, recorded).flagged;
    const higher = (value: number) => verdict({ name: 'x', value, better: 'higher' }, recorded).flagged;
    expect([lower(25), lower(38), lower(38.1)]).toEqual([false, false, true]);
    expect([higher(40), higher(26), higher(25.9)]).toEqual([false, false, true]);
  });

  it('happy: reads the four answers with a latency goal from bench:analytics, each recorded', () => {
    const out = [
      '[bench] pricing cold (miss → ClickHouse)                     n= 480  p50   17.5 ms  p99   26.0 ms  max   32.7 ms',
      '[bench] pricing warm (Redis hit)                             n= 480  p50    0.1 ms  p99    0.6 ms  max    1.2 ms',
      '[bench] heatmap (city box) cold (miss → ClickHouse)          n= 280  p50   22.3 ms  p99   75.0 ms  max  123.5 ms',
      '[bench] heatmap (city box) cold, Dar es Salaam only          n=  28  p50   36.2 ms  p99   84.7 ms  max   84.7 ms',
      '[bench] velocity cold (miss → ClickHouse)                    n= 480  p50   62.9 ms  p99  164.0 ms  max  201.0 ms',
      '[bench] estimate cold (miss → ClickHouse)                    n=1000  p50   45.0 ms  p99   88.9 ms  max  120.0 ms',
    ].join('\n');
    const figures = parseFigures('analytics', out);
    expect(figures.map((f) => [f.name, f.value])).toEqual([
      ['analytics: pricing p99 cold (ms)', 26.0],
      ['analytics: heatmap Dar es Salaam p99 cold (ms)', 84.7],
      ['analytics: velocity p99 cold (ms)', 164.0],
      ['analytics: estimate p99 cold (ms)', 88.9],
    ]);
    const recorded = readRecordedFile();
    for (const { name } of figures) expect(recorded.has(name), name).toBe(true);
    expect(() => parseFigures('analytics', out.split('\n').slice(0, 4).join('\n'))).toThrow(/2 figure\(s\)/);
  });

  it('happy: finds every figure it compares in bench/recorded.json', () => {
    const recorded = readRecordedFile();
    const names = [...parseFigures('ingest', ingestOut)].map((f) => f.name);
    for (const name of names) expect(recorded.has(name), name).toBe(true);
    // The file's own range for the figure, read without the module under test.
    const file = JSON.parse(fs.readFileSync('bench/recorded.json', 'utf8')) as {
      figures: { name: string; low: number; high: number }[];
    };
    const api = file.figures.find((f) => f.name === 'ingest: API µs per accepted listing')!;
    expect(recorded.get(api.name)).toEqual({ low: api.low, high: api.high });
  });

  it('error: refuses a recorded figure without a range instead of comparing against nothing', () => {
    expect(() => readRecorded('{"figures":[{"name":"x","low":3}]}')).toThrow(/malformed figure/);
    expect(() => readRecorded('{"figures":[{"name":"x","low":3,"high":2}]}')).toThrow(/malformed figure/);
    expect(() => readRecorded('{}')).toThrow(/no "figures" list/);
  });
});
