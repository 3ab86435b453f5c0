// Waiting for an event seen from outside (a count, a status, a log line) instead of sleeping for a guess: polls
// until the check passes, and fails only when a deadline that no healthy run comes near has passed. Without the
// gateway's modules, so that tests of single parts can use it too.

/** Polls until `check` passes or the time is up; for effects that land just after a response ends. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (!(await check())) throw new Error('condition not met in time');
}

/** Polls every `every` ms until `check` passes; fails naming `what` after `ms`. For effects seen from outside a process. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms: number, every = 50): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
