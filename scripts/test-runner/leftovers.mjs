// The processes still in a process group after its leader exited: what a test file started and did not stop.
import { readdirSync, readFileSync } from 'node:fs';

/** `pid command` of each process of the group (Linux's /proc; elsewhere none are found). */
export function leftovers(pgid) {
  const found = [];
  let pids = [];
  try { pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p)); } catch { return found; }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, the fields after the last ')' do not.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      if (fields[0] === 'Z') continue; // exited, only not yet reaped by its parent
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      found.push(`${pid} ${cmd.slice(0, 120)}`);
    } catch { /* gone meanwhile */ }
  }
  return found;
}
