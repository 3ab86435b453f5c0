// Whether a process on this machine still runs: how an instance tells a crashed peer's leftovers from a live one's.

/** Signal 0 checks without signalling; EPERM means the pid runs under another user, so it is alive. */
export function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}
