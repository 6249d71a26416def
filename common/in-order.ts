// Runs async work one piece at a time, in the order it was handed over: each piece starts when the
// one before it settled, whether it succeeded or failed. Each caller gets its own piece's result or
// failure; the chain itself only orders, so a failure never stops the pieces behind it.
export function inOrder(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const result = tail.then(work);
    tail = result.catch(() => undefined); // the caller awaits `result` and sees its failure
    return result;
  };
}
