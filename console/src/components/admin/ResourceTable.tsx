import type { ReactNode } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';

/** One column of a resource table: its header and what each row shows in it. */
export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
}

/**
 * The administration pages' list of records: a captioned table (its caption is the table's
 * accessible name), one row per record, and a line saying so when there is none.
 */
export function ResourceTable<Row>({
  caption,
  rows,
  rowKey,
  columns,
  empty,
  selected,
  error,
}: {
  caption: string;
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  columns: ReadonlyArray<Column<Row>>;
  /** Shown instead of the table when there are no rows; absent: the empty table shows. */
  empty?: ReactNode;
  /** The key of the row to mark as current (`aria-current`), e.g. the message being read. */
  selected?: string | undefined;
  /**
   * Why the records could not be listed. Shown instead of the table: an empty table (or a
   * "Loading…" caption) under a refusal would read as "no records" or "still loading".
   */
  error?: unknown;
}) {
  if (error) return <ErrorMessage error={error} />;
  if (rows.length === 0 && empty) return <div className="muted empty-state">{empty}</div>;
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.header} scope="col">
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const key = rowKey(row);
          return (
            <tr key={key} aria-current={selected === key ? 'true' : undefined}>
              {columns.map((column) => (
                <td key={column.header}>{column.cell(row)}</td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
