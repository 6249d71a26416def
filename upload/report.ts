// The failed-rows report (CONTRACT.md "Uploader CLI"): CSV with the header `row,field,code,message`,
// one line per error (LF line ends, which every CSV reader accepts and line-based scripts expect), `row` the data row's 1-based number (header not counted). Written as batches
// finish, in row order, so it streams like the input. Always written — with only the header when
// nothing failed — so scripts can rely on the path in the summary.
//
// The report is opened without following a symlink (O_NOFOLLOW), and only truncated once the file
// opened is known not to be the input (same device and inode: a hard link or a path that names the
// input another way), so a planted link can neither redirect the report nor overwrite the input.
import { closeSync, constants, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { FatalError } from './fatal.ts';
import type { FailedField } from './outcome.ts';

export const REPORT_HEADER = 'row,field,code,message';

export class ReportWriter {
  private readonly fd: number;

  constructor(
    readonly path: string,
    input?: { dev: number; ino: number },
  ) {
    let fd: number;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new FatalError(
        `cannot write the report ${path} (${code === 'ELOOP' ? 'it is a symbolic link' : (code ?? (error as Error).message)}); choose another path with --report`,
      );
    }
    const opened = fstatSync(fd);
    if (!opened.isFile() || (input && opened.dev === input.dev && opened.ino === input.ino)) {
      closeSync(fd);
      throw new FatalError(
        opened.isFile()
          ? `--report ${path} is the input file itself; choose another path`
          : `--report ${path} is not a regular file; choose another path`,
        2,
      );
    }
    ftruncateSync(fd, 0);
    this.fd = fd;
    writeSync(this.fd, REPORT_HEADER + '\n');
  }

  add(errors: readonly FailedField[]): void {
    if (!errors.length) return;
    const lines = errors.map((e) =>
      [String(e.row), csvCell(e.field), csvCell(e.code), csvCell(e.message)].join(','),
    );
    writeSync(this.fd, lines.join('\n') + '\n');
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * One RFC 4180 cell. Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first —
 * a column named `=HYPERLINK(…)` appears in an unknown_field message) gets a leading `'`, the
 * usual CSV-injection guard; the report is meant to be opened in one.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
