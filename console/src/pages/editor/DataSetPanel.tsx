import { type DataSet, dataSet, maxDataSetColumns, maxDataSetRows } from '@stepdeck/contract';
import { useId, useState } from 'react';
import { dataSetFromFile } from '../../lib/data-set-import.ts';

/** The first problem the contract finds in a data set, in words; empty when it is valid. */
function problemOf(set: DataSet | null): string {
  if (!set) return '';
  const result = dataSet.safeParse(set);
  return result.success ? '' : (result.error.issues[0]?.message ?? 'the data set is not valid');
}

const freshColumn = (columns: string[]) => {
  for (let n = columns.length + 1; ; n++) if (!columns.includes(`column${n}`)) return `column${n}`;
};

/**
 * The test's data set: a table the test runs over, once per row, each row its own result named
 * by its name column. Columns, rows and cells are edited in place or imported from a CSV or
 * JSON file; a problem is named under the table and holds the save back (`onValidity`).
 */
export function DataSetPanel(props: {
  value: DataSet | null;
  onChange(value: DataSet | null): void;
  onValidity(valid: boolean): void;
}) {
  const id = useId();
  const [importProblem, setImportProblem] = useState('');
  const set = props.value;
  const problem = problemOf(set);
  const update = (next: DataSet | null) => {
    props.onValidity(problemOf(next) === '');
    props.onChange(next);
  };
  const edit = (change: (current: DataSet) => DataSet) => {
    if (set) update(change(set));
  };
  const importFile = async (file: File | undefined) => {
    if (!file) return;
    try {
      const imported = dataSetFromFile(file.name, file.type, await file.text());
      setImportProblem('');
      update(imported);
    } catch (error) {
      setImportProblem(`${file.name}: ${(error as Error).message}`);
    }
  };
  const nameColumn = set ? (set.nameColumn ?? set.columns[0] ?? '') : '';
  return (
    <details className="test-data data-set" open={set ? true : undefined}>
      <summary>Data set{set ? ` (${set.rows.length} rows)` : ''}</summary>
      <p className="muted">
        The test runs once per row, each row its own result named by its name column. Steps read a row's cells
        as {'{{data.column}}'}. At most {maxDataSetRows} rows and {maxDataSetColumns} columns.
      </p>
      {set ? (
        <>
          <div className="data-set-scroll">
            <table aria-describedby={problem ? `${id}-problem` : undefined}>
              <caption className="visually-hidden">Data set rows</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  {set.columns.map((column, at) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are edited in place by position
                    <th scope="col" key={at}>
                      <input
                        className="data-set-column-name"
                        aria-label={`Column ${at + 1} name`}
                        value={column}
                        onChange={(event) =>
                          edit((current) => {
                            const columns = current.columns.map((name, index) =>
                              index === at ? event.target.value : name,
                            );
                            const renamedName =
                              current.nameColumn === column ? event.target.value : current.nameColumn;
                            return {
                              ...current,
                              columns,
                              ...(renamedName ? { nameColumn: renamedName } : {}),
                            };
                          })
                        }
                      />
                      <button
                        type="button"
                        aria-label={`Remove column ${column || at + 1}`}
                        disabled={set.columns.length === 1}
                        onClick={() =>
                          edit((current) => {
                            const { nameColumn: kept, ...rest } = current;
                            return {
                              ...rest,
                              columns: current.columns.filter((_name, index) => index !== at),
                              rows: current.rows.map((row) => row.filter((_cell, index) => index !== at)),
                              ...(kept && kept !== column ? { nameColumn: kept } : {}),
                            };
                          })
                        }
                      >
                        ×
                      </button>
                    </th>
                  ))}
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {set.rows.map((row, rowAt) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place by position
                  <tr key={rowAt}>
                    <th scope="row">{rowAt + 1}</th>
                    {row.map((cell, at) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: cells are edited in place by position
                      <td key={at}>
                        <input
                          className="data-set-cell"
                          aria-label={`Row ${rowAt + 1}, ${set.columns[at] || `column ${at + 1}`}`}
                          value={cell}
                          onChange={(event) =>
                            edit((current) => ({
                              ...current,
                              rows: current.rows.map((cells, index) =>
                                index === rowAt
                                  ? cells.map((value, column) => (column === at ? event.target.value : value))
                                  : cells,
                              ),
                            }))
                          }
                        />
                      </td>
                    ))}
                    <td>
                      <button
                        type="button"
                        aria-label={`Remove row ${rowAt + 1}`}
                        disabled={set.rows.length === 1}
                        onClick={() =>
                          edit((current) => ({
                            ...current,
                            rows: current.rows.filter((_row, index) => index !== rowAt),
                          }))
                        }
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {problem ? (
            <p id={`${id}-problem`} className="field-error" role="alert">
              {problem}
            </p>
          ) : null}
          <div className="data-set-actions">
            <button
              type="button"
              disabled={set.rows.length >= maxDataSetRows}
              onClick={() =>
                edit((current) => ({ ...current, rows: [...current.rows, current.columns.map(() => '')] }))
              }
            >
              Add row
            </button>
            <button
              type="button"
              disabled={set.columns.length >= maxDataSetColumns}
              onClick={() =>
                edit((current) => ({
                  ...current,
                  columns: [...current.columns, freshColumn(current.columns)],
                  rows: current.rows.map((row) => [...row, '']),
                }))
              }
            >
              Add column
            </button>
            <label>
              Row name column{' '}
              <select
                value={nameColumn}
                onChange={(event) => edit((current) => ({ ...current, nameColumn: event.target.value }))}
              >
                {set.columns.map((column, at) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: names may repeat while being typed
                  <option key={at} value={column}>
                    {column}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => update(null)}>
              Remove data set
            </button>
          </div>
        </>
      ) : (
        <button type="button" onClick={() => update({ columns: ['name'], rows: [['']] })}>
          Add data set
        </button>
      )}
      <label className="data-set-import">
        Import CSV or JSON file (replaces the table){' '}
        <input
          type="file"
          accept=".csv,.json,text/csv,application/json"
          aria-invalid={importProblem ? true : undefined}
          aria-describedby={importProblem ? `${id}-import-error` : undefined}
          onChange={(event) => {
            void importFile(event.target.files?.[0]);
            event.target.value = '';
          }}
        />
      </label>
      {importProblem ? (
        <p id={`${id}-import-error`} className="field-error" role="alert">
          {importProblem}
        </p>
      ) : null}
    </details>
  );
}
