import { useId, useState } from 'react';

type JsonObject = Record<string, unknown>;

/** One row: a name and its value. A value that was not text (a number, a list) stays JSON. */
interface Row {
  id: number;
  name: string;
  text: string;
  json: boolean;
}

let nextRowId = 0;
const rowsOf = (value: JsonObject | null): Row[] =>
  Object.entries(value ?? {}).map(([name, inner]) => ({
    id: nextRowId++,
    name,
    text: typeof inner === 'string' ? inner : JSON.stringify(inner),
    json: typeof inner !== 'string',
  }));

/** The object the rows make, or the problem of each row that does not make one. */
function objectOf(rows: readonly Row[]): { value: JsonObject | null; problems: Map<number, string> } {
  const value: JsonObject = {};
  const problems = new Map<number, string>();
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) {
      if (row.text.trim()) problems.set(row.id, 'a value needs a name');
      continue;
    }
    if (seen.has(name)) {
      problems.set(row.id, `${name} is named twice`);
      continue;
    }
    seen.add(name);
    if (!row.json) {
      value[name] = row.text;
      continue;
    }
    try {
      value[name] = JSON.parse(row.text);
    } catch {
      problems.set(row.id, 'this value was JSON and must stay JSON, e.g. 42 or ["a", "b"]');
    }
  }
  return { value: Object.keys(value).length ? value : null, problems };
}

/**
 * A JSON object of text values edited as rows of name and value, as people think of vars and
 * parameters; values that are not text keep their JSON. "Import JSON" replaces the rows with a
 * pasted object. A row with a problem is named on the row and holds the save back (`onValidity`).
 */
export function KeyValueField(props: {
  legend: string;
  /** One item, for the buttons and the fields' names: `var`, `parameter`. */
  noun: string;
  hint: string;
  value: JsonObject | null;
  onChange(value: JsonObject | null): void;
  onValidity(valid: boolean): void;
}) {
  const id = useId();
  const [rows, setRows] = useState<Row[]>(() => rowsOf(props.value));
  const [importText, setImportText] = useState('');
  const [importProblem, setImportProblem] = useState('');
  const { problems } = objectOf(rows);
  const update = (next: Row[]) => {
    setRows(next);
    const made = objectOf(next);
    props.onValidity(made.problems.size === 0);
    if (made.problems.size === 0) props.onChange(made.value);
  };
  const edit = (rowId: number, change: Partial<Row>) =>
    update(rows.map((row) => (row.id === rowId ? { ...row, ...change } : row)));
  const importJson = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(importText);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setImportProblem('must be a JSON object, e.g. {"name": "value"}');
      return;
    }
    setImportProblem('');
    setImportText('');
    update(rowsOf(parsed as JsonObject));
  };
  return (
    <fieldset className="key-values">
      <legend>{props.legend}</legend>
      <p className="muted">{props.hint}</p>
      {rows.length ? (
        <div className="key-value-rows">
          {rows.map((row, index) => {
            const problem = problems.get(row.id);
            const errorId = `${id}-${row.id}-error`;
            return (
              <div className="key-value-row" key={row.id}>
                <input
                  aria-label={`${props.noun} ${index + 1} name`}
                  placeholder="name"
                  value={row.name}
                  onChange={(event) => edit(row.id, { name: event.target.value })}
                />
                <input
                  aria-label={`${props.noun} ${index + 1} value${row.json ? ' (JSON)' : ''}`}
                  placeholder="value"
                  value={row.text}
                  className={row.json ? 'json-value' : undefined}
                  aria-invalid={problem ? true : undefined}
                  aria-describedby={problem ? errorId : undefined}
                  onChange={(event) => edit(row.id, { text: event.target.value })}
                />
                <button
                  type="button"
                  aria-label={`Remove ${props.noun} ${index + 1}`}
                  onClick={() => update(rows.filter((item) => item.id !== row.id))}
                >
                  Remove
                </button>
                {problem ? (
                  <span id={errorId} className="field-error">
                    {problem}
                  </span>
                ) : null}
              </div>
            );
          })}
        </div>
      ) : (
        <p className="muted">No {props.noun}s.</p>
      )}
      <button
        type="button"
        onClick={() => update([...rows, { id: nextRowId++, name: '', text: '', json: false }])}
      >
        Add {props.noun}
      </button>
      <details className="import-json">
        <summary>Import JSON</summary>
        <label htmlFor={`${id}-import`}>A JSON object replacing the rows above</label>
        <textarea
          id={`${id}-import`}
          rows={3}
          value={importText}
          aria-invalid={importProblem ? true : undefined}
          aria-describedby={importProblem ? `${id}-import-error` : undefined}
          onChange={(event) => setImportText(event.target.value)}
        />
        {importProblem ? (
          <span id={`${id}-import-error`} className="field-error">
            {importProblem}
          </span>
        ) : null}
        <button type="button" onClick={importJson}>
          Import
        </button>
      </details>
    </fieldset>
  );
}
