import { testStatus } from '@stepdeck/contract';

/** The test's status and its Save and Run buttons (Run waits for the changes to be saved). */
export function EditorToolbar(props: {
  status: string;
  onStatus(status: string): void;
  dirty: boolean;
  canSave: boolean;
  onSave(): void;
  onRun(): void;
}) {
  return (
    <div className="toolbar">
      <label>
        Status{' '}
        <select value={props.status} onChange={(event) => props.onStatus(event.target.value)}>
          {testStatus.options.map((status) => (
            <option key={status}>{status}</option>
          ))}
        </select>
      </label>
      <button type="button" disabled={!props.canSave} onClick={props.onSave}>
        Save
      </button>
      <button
        type="button"
        disabled={props.dirty}
        onClick={props.onRun}
        title={props.dirty ? 'Save first' : undefined}
      >
        Run
      </button>
      <span className="muted">{props.dirty ? 'Unsaved changes' : 'All changes saved'}</span>
    </div>
  );
}
