import { describe, expect, it } from 'vitest';
import { activeStatuses, runLifecycle, unitLifecycle } from '../../../src/modules/runs/queue/lifecycle.ts';

/** The states reachable from `pending` through the table's transitions. */
function reachable(machine: { table: Record<string, { from: readonly string[]; to: readonly string[] }> }) {
  const seen = new Set(['pending']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const transition of Object.values(machine.table))
      if (transition.from.some((state) => seen.has(state)))
        for (const state of transition.to)
          if (!seen.has(state)) {
            seen.add(state);
            grew = true;
          }
  }
  return [...seen].sort();
}

describe('run lifecycle', () => {
  it('every state is reached from pending, and only the ended ones are left by nothing', () => {
    expect(reachable(runLifecycle)).toEqual([...runLifecycle.states].sort());
    const left = new Set<string>(Object.values(runLifecycle.table).flatMap((transition) => transition.from));
    expect(runLifecycle.states.filter((state) => !left.has(state)).sort()).toEqual([
      'cancelled',
      'completed',
      'failed',
    ]);
    expect([...activeStatuses].sort()).toEqual([...left].sort());
    expect(reachable(unitLifecycle)).toEqual([...unitLifecycle.states].sort());
  });

  it('names the guard of each transition and refuses a target it does not list', () => {
    expect(runLifecycle.from('claim')).toEqual(['pending']);
    expect(runLifecycle.from('cancel')).toEqual(['pending', 'queued', 'running']);
    expect(runLifecycle.to('end', 'completed')).toBe('completed');
    expect(runLifecycle.allows('heartbeat', 'running')).toBe(true);
    expect(runLifecycle.allows('heartbeat', 'cancelled')).toBe(false);
    expect(unitLifecycle.from('heartbeat')).toEqual(['claimed', 'done']);
    // Values only known at run time (a status read from a row) are checked too.
    const unchecked = runLifecycle as unknown as {
      to(name: string, state: string): string;
      from(name: string): string[];
    };
    expect(() => unchecked.to('end', 'cancelled')).toThrow('run lifecycle: end cannot lead to cancelled');
    expect(() => unchecked.to('release', 'running')).toThrow('run lifecycle: release cannot lead to running');
    expect(() => unchecked.from('resurrect')).toThrow('run lifecycle: no transition named resurrect');
  });
});
