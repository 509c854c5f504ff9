import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';

type JsonObject = Record<string, unknown>;

/** A test's data besides its steps: `vars` and `parameters` (JSON objects, or none) and its tags. */
export interface TestData {
  vars: JsonObject | null;
  parameters: JsonObject | null;
  tagIds: string[];
}

/**
 * Vars, parameters and tags of the test. Vars and parameters are typed as JSON objects; text
 * that is not one stays as typed with the problem named on the field, and the save is held back
 * (`onValidity`) until it parses.
 */
export function TestDataPanel(props: {
  data: TestData;
  onChange(data: Partial<TestData>): void;
  onValidity(valid: boolean): void;
}) {
  const id = useId();
  const tags = useQuery({ queryKey: ['tags'], queryFn: authoringApi.tags, staleTime: 60_000 });
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());
  const mark = (key: string, bad: boolean) => {
    const next = new Set(invalid);
    if (bad) next.add(key);
    else next.delete(key);
    setInvalid(next);
    props.onValidity(next.size === 0);
  };
  return (
    <details className="test-data">
      <summary>Vars, parameters and tags</summary>
      <JsonObjectField
        label="Vars (JSON object, {{vars.name}} in steps)"
        value={props.data.vars}
        onChange={(vars) => props.onChange({ vars })}
        onValidity={(valid) => mark('vars', !valid)}
      />
      <JsonObjectField
        label="Parameters (JSON object, {{parameters.name}} in steps)"
        value={props.data.parameters}
        onChange={(parameters) => props.onChange({ parameters })}
        onValidity={(valid) => mark('parameters', !valid)}
      />
      <div className="field">
        <label htmlFor={`${id}-tags`}>Tags</label>
        <select
          id={`${id}-tags`}
          multiple
          value={props.data.tagIds}
          onChange={(event) =>
            props.onChange({ tagIds: [...event.target.selectedOptions].map((option) => option.value) })
          }
        >
          {(tags.data?.data ?? []).map((tag) => (
            <option key={tag.id} value={tag.id}>
              {tag.name}
            </option>
          ))}
        </select>
      </div>
    </details>
  );
}

function JsonObjectField(props: {
  label: string;
  value: JsonObject | null;
  onChange(value: JsonObject | null): void;
  onValidity(valid: boolean): void;
}) {
  const id = useId();
  const [text, setText] = useState(props.value ? JSON.stringify(props.value, null, 2) : '');
  const [problem, setProblem] = useState('');
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <textarea
        id={id}
        rows={3}
        value={text}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
        onChange={(event) => {
          const typed = event.target.value;
          setText(typed);
          let next: unknown = null;
          if (typed.trim() !== '') {
            try {
              next = JSON.parse(typed);
            } catch {
              next = undefined;
            }
          }
          const ok =
            next === null || (typeof next === 'object' && next !== undefined && !Array.isArray(next));
          setProblem(ok ? '' : 'must be a JSON object, e.g. {"name": "value"}');
          props.onValidity(ok);
          if (ok) props.onChange(next as JsonObject | null);
        }}
      />
      {problem ? (
        <span id={`${id}-error`} className="field-error">
          {problem}
        </span>
      ) : null}
    </div>
  );
}
