import { useId } from 'react';

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
