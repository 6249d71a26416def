// The one way the uploader stops early: a FatalError carries the reason printed on stderr and the
// exit code (CONTRACT.md "Uploader CLI": non-zero with the reason on stderr). Everything else —
// a refused row, a 429, a dropped connection — is handled and the upload carries on.

/** 1: the upload could not run or finish (file, key, server); 2: the command line itself is wrong. */
export type FatalExitCode = 1 | 2;

export class FatalError extends Error {
  constructor(
    message: string,
    readonly exitCode: FatalExitCode = 1,
  ) {
    super(message);
    this.name = 'FatalError';
  }
}
