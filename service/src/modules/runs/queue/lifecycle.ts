/**
 * The run lifecycle as one state machine: the states of a run (table `runs`) and of a unit of
 * a split run (table `runBatches`: a batch of tests, or the merge), and every transition
 * between them. Each transition lives in its own file beside this one
 * (`<transition>-repository.ts`), whose UPDATE is guarded by the transition's `from` states
 * and writes one of its `to` states as listed here; so this table is all that can happen to a
 * run, and a transition or target it does not list is a programming error (a type error, or an
 * exception for a value only known at run time).
 *
 *   (created) pending ──claim──▶ queued ──start──▶ running ──end──▶ completed | failed
 *                ▲                 │  ╰──────fail / recover──────╯──▶ failed
 *                ╰─────release─────╯
 *   pending | queued | running ──cancel──▶ cancelled
 *
 *   unit: (split) pending ──claim──▶ claimed ──end──▶ done | cancelled
 *                   ▲                   │ ╰──recover (twice stale)──▶ cancelled
 *                   ╰─release/recover───╯
 */

interface Transition<State extends string> {
  readonly from: readonly State[];
  /** The states it leads to; none when the state stays (a heartbeat). */
  readonly to: readonly State[];
}

/** A transition table over `states`, with the checks its transitions use. */
function stateMachine<
  const State extends string,
  const Table extends { readonly [name: string]: Transition<NoInfer<State>> },
>(what: string, states: readonly State[], table: Table) {
  type Name = keyof Table & string;
  const entry = (name: Name): Transition<State> => {
    const transition = table[name];
    if (!transition) throw new Error(`${what} lifecycle: no transition named ${name}`);
    return transition;
  };
  return {
    states,
    table,
    /** The states a transition starts from: the guard of its UPDATE. */
    from: (name: Name): State[] => [...entry(name).from],
    /** Whether a transition may start from `state` (a status read from a row). */
    allows: (name: Name, state: string): boolean => (entry(name).from as readonly string[]).includes(state),
    /** The state a transition writes; one the table does not list for it throws. */
    to<N extends Name, S extends Table[N]['to'][number]>(name: N, state: S): S {
      if (!(entry(name).to as readonly string[]).includes(state))
        throw new Error(`${what} lifecycle: ${name} cannot lead to ${state}`);
      return state;
    },
  };
}

/** A runner holds the run (claimed, then executing). */
export const claimedStatuses = ['queued', 'running'] as const;
/** Not ended yet: the one list every module uses (terminal ones are the contract's). */
export const activeStatuses = ['pending', ...claimedStatuses] as const;

export const runLifecycle = stateMachine('run', [...activeStatuses, 'completed', 'failed', 'cancelled'], {
  /** A runner slot takes the run, reserving a parallel of the organization's cap. */
  claim: { from: ['pending'], to: ['queued'] },
  /** The holder begins executing it. */
  start: { from: ['queued'], to: ['running'] },
  /** The holder proves it is alive (`heartbeatAt`); the state stays. */
  heartbeat: { from: claimedStatuses, to: [] },
  /** Its outcome is written: every test passed, or not. */
  end: { from: ['running'], to: ['completed', 'failed'] },
  /** Its runner fails it (crash, missing browser, shutdown past the grace). */
  fail: { from: claimedStatuses, to: ['failed'] },
  /** Its holder gives it back unstarted (claimed while shutting down). */
  release: { from: ['queued'], to: ['pending'] },
  /** A live runner fails it for a dead holder (stale heartbeat; any holder at embedded start). */
  recover: { from: claimedStatuses, to: ['failed'] },
  /** A user cancels it before it ended. */
  cancel: { from: activeStatuses, to: ['cancelled'] },
});
export type RunState = (typeof runLifecycle.states)[number];

export const unitLifecycle = stateMachine('unit', ['pending', 'claimed', 'done', 'cancelled'], {
  /** A slot takes the unit (the planning slot takes batch 0 as it writes the batches). */
  claim: { from: ['pending'], to: ['claimed'] },
  /** The holder proves it is alive; a done batch's slot beats on until it takes the merge. */
  heartbeat: { from: ['claimed', 'done'], to: [] },
  /** The holder ends it: its result kept for the merge, or cut short by a cancel. */
  end: { from: ['claimed'], to: ['done', 'cancelled'] },
  /** Its holder gives it back unworked (claimed while shutting down). */
  release: { from: ['claimed'], to: ['pending'] },
  /** A live runner puts a dead holder's unit back once, and cancels it the second time. */
  recover: { from: ['claimed'], to: ['pending', 'cancelled'] },
});
export type UnitState = (typeof unitLifecycle.states)[number];
