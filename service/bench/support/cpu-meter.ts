import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (user + system) of this process and of every process it starts, however deep:
 * Playwright's runner and workers, Chromium's processes, the merge process. CPU time is what
 * start-up overhead costs whatever else the machine runs, so it stays comparable under load
 * where wall-clock figures do not.
 *
 * Children are sampled from /proc every `intervalMs` (the kernel's cumulative counters only
 * reach a parent for children it reaped, and Chromium's helpers are re-parented when the
 * browser exits): each process seen once as a descendant is followed until it is gone, and
 * its last reading counts. A process living less than one interval can be missed; the
 * sampling itself is taken out of this process's own figure.
 */
export class CpuMeter {
  private readonly ticksPerMs = 100 / 1000; // USER_HZ on Linux
  private readonly seen = new Map<string, number>(); // "pid:start" → CPU ms at the last reading
  private readonly kinds = new Map<string, string>(); // "pid:start" → what the process is (kindOf)
  private readonly timer: NodeJS.Timeout;
  private samplingUs = 0;

  constructor(intervalMs = 100) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** CPU ms so far: this process (sampling excluded) and every descendant seen. */
  read(): { self: number; children: number } {
    this.sample();
    const own = process.cpuUsage();
    let children = 0;
    for (const ms of this.seen.values()) children += ms;
    return { self: (own.user + own.system - this.samplingUs) / 1000, children };
  }

  /** CPU ms so far of the descendants, by what they are (see {@link kindOf}). */
  byKind(): Map<string, number> {
    const totals = new Map<string, number>();
    for (const [key, ms] of this.seen) {
      const kind = this.kinds.get(key) ?? 'other';
      totals.set(kind, (totals.get(kind) ?? 0) + ms);
    }
    return totals;
  }

  /**
   * Runs `work` and returns its result with the CPU ms it cost (this process and its
   * descendants), and the descendants' share by kind.
   */
  async measure<T>(
    work: () => Promise<T>,
  ): Promise<{ value: T; cpuMs: number; selfMs: number; byKind: Map<string, number> }> {
    const before = this.read();
    const kindsBefore = this.byKind();
    const value = await work();
    const after = this.read();
    const byKind = new Map<string, number>();
    for (const [kind, ms] of this.byKind()) {
      const spent = ms - (kindsBefore.get(kind) ?? 0);
      if (spent > 0) byKind.set(kind, spent);
    }
    const selfMs = after.self - before.self;
    return { value, cpuMs: selfMs + after.children - before.children, selfMs, byKind };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const started = process.cpuUsage();
    const parents = new Map<number, number>();
    const stats = new Map<number, string[]>();
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid <= 0) continue;
      try {
        const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
        parents.set(pid, Number(fields[1]));
        stats.set(pid, fields);
      } catch {
        // gone meanwhile
      }
    }
    const descends = (pid: number): boolean => {
      for (let current = parents.get(pid), depth = 0; current && depth < 64; depth += 1) {
        if (current === process.pid) return true;
        current = parents.get(current);
      }
      return false;
    };
    for (const [pid, fields] of stats) {
      if (pid === process.pid) continue;
      const key = `${pid}:${fields[19]}`;
      if (!this.seen.has(key) && !descends(pid)) continue;
      const cpuMs = (Number(fields[11]) + Number(fields[12])) / this.ticksPerMs;
      if (cpuMs >= (this.seen.get(key) ?? 0)) this.seen.set(key, cpuMs);
      // Asked at every reading: a process forked by Chromium's zygote shows the zygote's command
      // line until it renames itself, a launcher script becomes Chromium when it execs.
      const kind = kindOf(pid);
      if (kind) this.kinds.set(key, kind);
    }
    const spent = process.cpuUsage(started);
    this.samplingUs += spent.user + spent.system;
  }
}

/**
 * What a process is, from its command line: Playwright's runner, worker, the service's
 * supervisor or merge process, or a Chromium process by `--type` (the browser has none).
 * Null when it is gone.
 */
function kindOf(pid: number): string | null {
  let command: string;
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null;
  }
  if (command.includes('supervisor-main')) return 'supervisor';
  if (command.includes('merge-server-main')) return 'merge process';
  if (command.includes('workerProcessEntry')) return 'playwright worker';
  if (/cli\.js (test|merge-reports)/.test(command)) return `playwright ${/cli\.js (\S+)/.exec(command)?.[1]}`;
  if (/chrom|headless/i.test(command.split(' ')[0] ?? '')) {
    const type = /--type=(\S+)/.exec(command)?.[1];
    const utility = /--utility-sub-type=\S*?(\w+)(?:\s|$)/.exec(command)?.[1];
    return type ? `chromium ${type}${utility ? ` ${utility}` : ''}` : 'chromium browser';
  }
  return command ? (command.split(' ')[0]?.split('/').pop() ?? 'other') : null;
}
