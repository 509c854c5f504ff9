import type { Environment, EnvironmentCreateBody } from '@stepdeck/contract';
import { type FormEvent, useState } from 'react';
import { Field } from '../../components/admin/Field.tsx';

interface Row {
  id: number;
  name: string;
  value: string;
}
let nextRowId = 0;
const row = (name = '', value = ''): Row => ({ id: nextRowId++, name, value });

/** The names in `rows` that are empty, repeated, or not usable as `{{env.NAME}}`/`{{secrets.NAME}}`. */
function rowProblem(rows: readonly Row[], noun: string): string | undefined {
  const seen = new Set<string>();
  for (const item of rows) {
    const name = item.name.trim();
    if (!name) return `Every ${noun} needs a name`;
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name))
      return `${noun} "${name}": letters, digits and underscores, not starting with a digit`;
    if (seen.has(name)) return `${noun} "${name}" is named twice`;
    seen.add(name);
  }
  return undefined;
}

/**
 * Creates or edits an environment: name, base URL, variables as rows, and secrets that are
 * write-only (existing ones listed by name: a new value replaces, "Remove" deletes on save).
 */
export function EnvironmentForm(props: {
  editing: Environment | undefined;
  onSave(body: EnvironmentCreateBody): void;
  onCancel(): void;
  saving: boolean;
}) {
  const { editing } = props;
  const [name, setName] = useState(editing?.name ?? '');
  const [baseURL, setBaseURL] = useState(editing?.baseURL ?? '');
  const [variables, setVariables] = useState<Row[]>(() =>
    Object.entries(editing?.variables ?? {}).map(([key, value]) => row(key, value)),
  );
  const [secrets, setSecrets] = useState<Row[]>([]);
  const [removed, setRemoved] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const kept = (editing?.secrets ?? []).filter((secret) => !removed.includes(secret.name));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = rowProblem(variables, 'Variable') ?? rowProblem(secrets, 'Secret');
    setProblem(found);
    if (found) return;
    props.onSave({
      name: name.trim(),
      baseURL: baseURL.trim() === '' ? null : baseURL.trim(),
      variables: Object.fromEntries(variables.map((item) => [item.name.trim(), item.value])),
      secrets: {
        ...Object.fromEntries(removed.map((secret) => [secret, null])),
        ...Object.fromEntries(secrets.map((item) => [item.name.trim(), item.value])),
      },
    });
  };

  const rows = (noun: 'Variable' | 'Secret', list: Row[], set: (next: Row[]) => void) =>
    list.map((item, index) => (
      <div className="key-value-row" key={item.id}>
        <input
          aria-label={`${noun} ${index + 1} name`}
          placeholder="NAME"
          value={item.name}
          onChange={(event) =>
            set(list.map((other) => (other.id === item.id ? { ...other, name: event.target.value } : other)))
          }
        />
        <input
          aria-label={`${noun} ${index + 1} value`}
          placeholder="value"
          type={noun === 'Secret' ? 'password' : 'text'}
          autoComplete={noun === 'Secret' ? 'new-password' : 'off'}
          value={item.value}
          onChange={(event) =>
            set(list.map((other) => (other.id === item.id ? { ...other, value: event.target.value } : other)))
          }
        />
        <button
          type="button"
          aria-label={`Remove ${noun.toLowerCase()} ${index + 1}`}
          onClick={() => set(list.filter((other) => other.id !== item.id))}
        >
          Remove
        </button>
      </div>
    ));

  return (
    <form
      className="admin-form environment-form"
      onSubmit={submit}
      aria-label={editing ? `Edit environment ${editing.name}` : 'Create an environment'}
    >
      <Field label="Environment name" hint="Lowercase letters, digits, - and _ (e.g. staging).">
        <input
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
          maxLength={32}
          pattern="[a-z0-9][a-z0-9_\-]{0,31}"
        />
      </Field>
      <Field label="Base URL" hint="Where the tests' relative URLs go; a run's own base URL wins.">
        <input
          type="url"
          value={baseURL}
          placeholder="https://staging.example.com"
          onChange={(event) => setBaseURL(event.target.value)}
        />
      </Field>
      <fieldset className="key-values">
        <legend>Variables</legend>
        <p className="muted">
          Used in steps as <code>{'{{env.NAME}}'}</code>.
        </p>
        {variables.length ? (
          <div className="key-value-rows">{rows('Variable', variables, setVariables)}</div>
        ) : (
          <p className="muted">No variables.</p>
        )}
        <button type="button" onClick={() => setVariables([...variables, row()])}>
          Add variable
        </button>
      </fieldset>
      <fieldset className="key-values">
        <legend>Secrets</legend>
        <p className="muted">
          Write-only, used as <code>{'{{secrets.NAME}}'}</code> before the project&apos;s secret of the same
          name and hidden in every report, trace and log. A new value replaces a stored one.
        </p>
        {kept.length > 0 && (
          <ul className="stored-secrets" aria-label="Stored secrets">
            {kept.map((secret) => (
              <li key={secret.name}>
                <code>{secret.name}</code> <span className="muted">(value hidden)</span>{' '}
                <button
                  type="button"
                  aria-label={`Remove stored secret ${secret.name}`}
                  onClick={() => setRemoved([...removed, secret.name])}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
        {secrets.length > 0 && <div className="key-value-rows">{rows('Secret', secrets, setSecrets)}</div>}
        <button type="button" onClick={() => setSecrets([...secrets, row()])}>
          Add secret
        </button>
      </fieldset>
      {problem && (
        <div role="alert" className="error-box">
          {problem}
        </div>
      )}
      <div className="form-actions">
        <button type="submit" disabled={props.saving}>
          {editing ? 'Save environment' : 'Create environment'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
