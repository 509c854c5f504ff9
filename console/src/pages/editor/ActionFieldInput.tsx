import { useId, useState } from 'react';
import type { ActionField } from '../../lib/action-fields.ts';

/**
 * One field of an action's form, its kind read from the contract. The error (the contract's
 * check as you type, or the API's answer to a save) is shown on the field and announced.
 */
export function ActionFieldInput(props: {
  field: ActionField;
  value: unknown;
  error: string | undefined;
  suggestionsId: string;
  onChange(value: unknown): void;
}) {
  const { field, value, error } = props;
  const id = useId();
  const errorId = `${id}-error`;
  const common = {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby':
      [field.kind === 'list' ? `${id}-hint` : '', error ? errorId : ''].filter(Boolean).join(' ') ||
      undefined,
  } as const;
  const label = `${field.key}${field.required ? '' : ' (optional)'}`;
  let input: React.ReactNode;
  if (field.kind === 'boolean') {
    input = (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(event) => props.onChange(event.target.checked ? true : undefined)}
      />
    );
  } else if (field.kind === 'choice') {
    input = (
      <select
        {...common}
        value={String(value ?? '')}
        onChange={(event) => props.onChange(event.target.value || undefined)}
      >
        {field.required ? null : <option value="">(default)</option>}
        {field.choices.map((choice) => (
          <option key={choice}>{choice}</option>
        ))}
      </select>
    );
  } else if (field.kind === 'number') {
    input = (
      <input
        {...common}
        type="number"
        value={value === undefined ? '' : String(value)}
        onChange={(event) => {
          const raw = event.target.value;
          // A half-typed number stays as typed, so the contract's check names it.
          props.onChange(
            raw === '' ? (field.required ? raw : undefined) : Number.isNaN(Number(raw)) ? raw : Number(raw),
          );
        }}
      />
    );
  } else if (field.kind === 'list') {
    input = (
      <textarea
        {...common}
        rows={3}
        value={Array.isArray(value) ? value.join('\n') : typeof value === 'string' ? value : ''}
        onChange={(event) => {
          const lines = event.target.value
            .split('\n')
            .map((line) => line.trim())
            .filter(Boolean);
          // An optional list left empty is no list at all (an empty `frame` names no iframe).
          props.onChange(lines.length === 0 && !field.required ? undefined : lines);
        }}
      />
    );
  } else if (field.kind === 'json') {
    return <JsonField {...props} id={id} label={label} />;
  } else {
    input = (
      <input
        {...common}
        list={props.suggestionsId}
        value={typeof value === 'string' ? value : ''}
        onChange={(event) =>
          props.onChange(event.target.value === '' && !field.required ? undefined : event.target.value)
        }
      />
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {input}
      {field.kind === 'list' ? (
        <span id={`${id}-hint`} className="muted">
          {field.hint ?? 'one per line'}
        </span>
      ) : null}
      {error ? (
        <span id={errorId} className="field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** A free-form value (headers, body, expected JSON): typed as JSON, kept as typed until it parses. */
function JsonField(props: {
  id: string;
  label: string;
  value: unknown;
  error: string | undefined;
  onChange(value: unknown): void;
}) {
  const [text, setText] = useState(props.value === undefined ? '' : JSON.stringify(props.value, null, 2));
  const [problem, setProblem] = useState('');
  const error = problem || props.error;
  const errorId = `${props.id}-error`;
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label} (JSON)</label>
      <textarea
        id={props.id}
        rows={3}
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(event) => {
          setText(event.target.value);
          if (event.target.value.trim() === '') {
            setProblem('');
            props.onChange(undefined);
            return;
          }
          try {
            props.onChange(JSON.parse(event.target.value));
            setProblem('');
          } catch {
            setProblem('must be valid JSON');
          }
        }}
      />
      {error ? (
        <span id={errorId} className="field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}
