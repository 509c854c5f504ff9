import type { StepMove } from '../../lib/step-tree-edit.ts';
/** Moving or deleting the chosen step with buttons (the steps tree takes Alt+arrows too). */
export function StepToolbar(props: { onMove(direction: StepMove): void; onDelete(): void }) {
  return (
    <fieldset className="toolbar">
      <legend className="visually-hidden">Move or delete the step</legend>
      <button type="button" onClick={() => props.onMove('up')}>
        Move up
      </button>
      <button type="button" onClick={() => props.onMove('down')}>
        Move down
      </button>
      <button type="button" onClick={() => props.onMove('in')}>
        Into group above
      </button>
      <button type="button" onClick={() => props.onMove('out')}>
        Out of group
      </button>
      <button type="button" className="danger" onClick={props.onDelete}>
        Delete step
      </button>
    </fieldset>
  );
}
