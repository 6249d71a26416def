// Progress on stderr (stdout carries only the summary line): on a terminal a redrawn bar with rate
// and ETA; otherwise (CI logs, pipes) a plain line every few seconds. Percent and ETA come from the
// bytes of the file behind finished batches, since a streamed file's row count is known only at
// its end.

export interface ProgressState {
  rows: number;
  batches: number;
  failed: number;
  /** File bytes behind the finished batches. */
  bytes: number;
}

export interface Progress {
  /** Rows and bytes already done before this run (a resumed upload) do not count into the rate. */
  begin(totalBytes: number, already: ProgressState): void;
  update(state: ProgressState): void;
  /** A one-off message (resuming, waiting on a rate limit, …). */
  note(message: string): void;
  /** The --wait phase: batches completed so far of those that store listings. */
  waiting(completed: number, total: number): void;
  end(): void;
}

export function createProgress(
  stream: NodeJS.WriteStream,
  options: { plainEveryMs?: number } = {},
): Progress {
  const tty = stream.isTTY === true;
  const plainEveryMs = options.plainEveryMs ?? 5_000;
  let totalBytes = 0;
  let startedAt = Date.now();
  let base: ProgressState = { rows: 0, batches: 0, failed: 0, bytes: 0 };
  let last: ProgressState = base;
  let lastDraw = 0;
  let drawn = false;

  const clear = () => {
    if (tty && drawn) stream.write('\r\x1b[K');
    drawn = false;
  };
  const write = (line: string) => {
    if (tty) {
      stream.write(`\r\x1b[K${line.slice(0, (stream.columns || 100) - 1)}`);
      drawn = true;
    } else {
      stream.write(`${line}\n`);
    }
  };

  const line = (state: ProgressState): string => {
    const seconds = (Date.now() - startedAt) / 1000;
    const rate = seconds > 0 ? (state.rows - base.rows) / seconds : 0;
    const fraction = totalBytes > 0 ? Math.min(1, state.bytes / totalBytes) : 0;
    const byteRate = seconds > 0 ? (state.bytes - base.bytes) / seconds : 0;
    const eta = byteRate > 0 ? (totalBytes - state.bytes) / byteRate : undefined;
    const counts = `${fmt(state.rows)} rows, ${fmt(state.batches)} batches, ${fmt(state.failed)} failed`;
    const speed = `${fmt(Math.round(rate))} rows/s, ETA ${eta === undefined ? '?' : duration(eta)}`;
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
    if (!tty) return `upload: ${percent} ${counts}, ${speed}`;
    const width = 24;
    const filled = Math.round(fraction * width);
    return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent} ${counts}, ${speed}`;
  };

  // What the last drawn or printed line showed, so end() neither repeats nor misses the final state.
  let phase: 'send' | 'wait' = 'send';
  let shown = '';
  let waitState = '';
  const show = (key: string, text: string) => {
    shown = key;
    write(text);
  };
  const waitLine = (completed: number, total: number) =>
    `upload: waiting for batches to be stored: ${fmt(completed)}/${fmt(total)} completed`;

  return {
    begin(bytes, already) {
      totalBytes = bytes;
      base = already;
      last = already;
      startedAt = Date.now();
    },
    update(state) {
      last = state;
      const now = Date.now();
      if (now - lastDraw < (tty ? 100 : plainEveryMs)) return;
      lastDraw = now;
      show(`send:${state.rows}`, line(state));
    },
    note(message) {
      clear();
      stream.write(`upload: ${message}\n`);
      if (tty && shown) write(phase === 'send' ? line(last) : waitState);
    },
    waiting(completed, total) {
      phase = 'wait';
      waitState = waitLine(completed, total);
      if (total === 0) return;
      const now = Date.now();
      if (completed > 0 && completed < total && now - lastDraw < (tty ? 100 : plainEveryMs)) return;
      lastDraw = now;
      show(`wait:${completed}`, waitState);
    },
    end() {
      const key = phase === 'send' ? `send:${last.rows}` : shown.startsWith('wait:') ? shown : '';
      if (phase === 'send' && last.rows > base.rows && key !== shown) show(key, line(last));
      if (tty && drawn) stream.write('\n');
      drawn = false;
      shown = '';
      lastDraw = 0;
    },
  };
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}
