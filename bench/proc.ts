import { readdirSync, readFileSync } from 'node:fs';

/** What the benches read about processes from /proc (Linux): CPU time and resident memory. */

/** utime + stime of a process in ms (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
export function readCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** utime + stime of each process named `postgres`, in ms, by pid. */
export function readPostgresCpuMs(): Map<string, number> {
  const byPid = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byPid.set(entry, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // the process has exited
    }
  }
  return byPid;
}

/**
 * PostgreSQL CPU spent between two readings: the processes alive at the end
 * (those started since count from 0). A backend that exited in between is
 * left out, so this can undercount, never go negative.
 */
export function postgresCpuSince(before: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of readPostgresCpuMs()) total += ms - (before.get(pid) ?? 0);
  return total;
}

export function readRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
