import fs from 'node:fs';

const MiB = 1024 * 1024;

/**
 * Peak RSS growth of this process (the one hosting the service in a test) while `work` runs:
 * VmHWM reset before (`clear_refs` 5) where the kernel allows it, and RSS sampled every 5 ms.
 */
export async function peakGrowth<T>(
  work: () => Promise<T>,
): Promise<{ value: T; growthMiB: number; baselineMiB: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const hwm = () =>
    Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
  let resettable = true;
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    resettable = false;
  }
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss, resettable ? hwm() : 0);
    return { value, growthMiB: (peak - baseline) / MiB, baselineMiB: baseline / MiB };
  } finally {
    clearInterval(sampler);
  }
}
