import { planBatches } from '../src/modules/runs/planner.ts';

const rec: Record<string, number> = {
  0: 8.39,
  1: 8.53,
  2: 4.17,
  3: 4.13,
  4: 4.22,
  5: 4.18,
  6: 1.23,
  7: 1.27,
  8: 1.15,
  9: 1.18,
  10: 1.22,
  11: 1.24,
  12: 1.25,
  13: 1.46,
  14: 1.27,
  15: 1.34,
};
for (const c of [0, 0.05, 0.1, 0.2, 0.3]) {
  const units = Object.entries(rec).map(([id, s]) => ({ testId: id, expectedMs: (s + c) * 1000 }));
  const plan = planBatches(units, 4, 600);
  console.log(
    c,
    plan
      .map((b) => `{${b.testIds.map((id) => Math.round(rec[id] as number)).join(',')}}=${b.expectedMs}`)
      .join(' '),
  );
}
