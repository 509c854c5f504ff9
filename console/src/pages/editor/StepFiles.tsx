import { useId } from 'react';
import type { EditorStep } from '../../lib/step-tree-edit.ts';

/**
 * The files of a `setInputFiles` step: each name the action lists, whether the service already
 * holds it for this test or it goes up with the next save, and a picker that adds files to both
 * the action and the pending uploads (a name already stored is replaced by the upload).
 */
export function StepFiles(props: {
  names: string[];
  stored: ReadonlySet<string>;
  pending: ReadonlyMap<string, File>;
  onAdd(files: File[]): void;
}) {
  const id = useId();
  return (
    <div className="field step-files">
      <label htmlFor={id}>Upload files for this step</label>
      <input
        id={id}
        type="file"
        multiple
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          if (files.length > 0) props.onAdd(files);
          event.target.value = '';
        }}
      />
      {props.names.length > 0 ? (
        <ul aria-label="Files of this step">
          {props.names.map((name) => (
            <li key={name}>
              <code>{name}</code>{' '}
              {props.pending.has(name) ? (
                <span>uploaded with the next save</span>
              ) : props.stored.has(name) ? (
                <span className="muted">stored</span>
              ) : (
                <strong className="field-error">not uploaded yet: the run will fail at this step</strong>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * `StepFiles` for the chosen step, when it is an own `setInputFiles` step: added files join the
 * pending uploads (a same-named one replaced) and the action's file names. Shared by the test
 * editor and the shared step's editor.
 */
export function ChosenStepFiles(props: {
  step: EditorStep;
  storedFiles: readonly { filename: string }[] | undefined;
  uploads: ReadonlyMap<string, File>;
  onUploads(next: ReadonlyMap<string, File>): void;
  onStepChange(change: Partial<EditorStep>): void;
}) {
  const { step } = props;
  if (step.action.name !== 'setInputFiles' || step.shared) return null;
  const listed = Array.isArray(step.action.files) ? step.action.files.map(String) : [];
  return (
    <StepFiles
      names={listed}
      stored={new Set((props.storedFiles ?? []).map((file) => file.filename))}
      pending={props.uploads}
      onAdd={(files) => {
        const next = new Map(props.uploads);
        for (const file of files) next.set(file.name, file);
        props.onUploads(next);
        const names = [...new Set([...listed, ...files.map((file) => file.name)])];
        props.onStepChange({ action: { ...step.action, files: names } });
      }}
    />
  );
}
