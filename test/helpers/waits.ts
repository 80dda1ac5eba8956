import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The bounded wait of a "nothing more happens" check: for `ms` it checks
 * `holds` every `everyMs` and throws, naming `what` and when, as soon as it
 * turns false. A check that something does not happen cannot wait for a
 * condition; it waits for the window in which it would have happened.
 */
export async function holdsFor(
  what: string,
  ms: number,
  holds: () => boolean | Promise<boolean>,
  everyMs = 100,
): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (!(await holds())) {
      throw new Error(`${what}: no longer held ${Date.now() - started} ms into a ${ms} ms window`);
    }
    const left = ms - (Date.now() - started);
    if (left <= 0) return;
    await sleep(Math.min(everyMs, left));
  }
}
