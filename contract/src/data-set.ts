import { z } from 'zod';

/**
 * A test's data set: a table the test runs over, once per row (Ghost Inspector's and mabl's
 * data-driven tests). Steps read the row's cells as `{{data.<column>}}`; each row is its own
 * result, named by the cell of `nameColumn` (default: the first column).
 */

export const maxDataSetRows = 200;
export const maxDataSetColumns = 32;
/** Bytes of one cell (UTF-8). */
export const maxDataSetCellBytes = 4096;
export const dataColumnName = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const cellBytes = (cell: string) => new TextEncoder().encode(cell).length;

export const dataSet = z
  .object({
    columns: z
      .array(
        z
          .string()
          .regex(
            dataColumnName,
            'a column name starts with a letter or _ and holds only letters, digits and _ (at most 64)',
          ),
        { error: 'columns must be an array of column names' },
      )
      .min(1, 'a data set needs at least one column')
      .max(maxDataSetColumns, `a data set has at most ${maxDataSetColumns} columns`),
    rows: z
      .array(z.array(z.string({ error: 'a cell must be a string' })), {
        error: 'rows must be an array of rows (arrays of strings)',
      })
      .min(1, 'a data set needs at least one row')
      .max(maxDataSetRows, `a data set has at most ${maxDataSetRows} rows`),
    nameColumn: z.string().optional(),
  })
  .superRefine((set, ctx) => {
    const seen = new Set<string>();
    for (const column of set.columns) {
      if (seen.has(column))
        ctx.addIssue({ code: 'custom', path: ['columns'], message: `column "${column}" appears twice` });
      seen.add(column);
    }
    if (set.nameColumn !== undefined && !set.columns.includes(set.nameColumn))
      ctx.addIssue({
        code: 'custom',
        path: ['nameColumn'],
        message: `nameColumn "${set.nameColumn}" is not one of the columns`,
      });
    set.rows.forEach((row, index) => {
      if (row.length !== set.columns.length)
        ctx.addIssue({
          code: 'custom',
          path: ['rows', index],
          message: `row ${index + 1} has ${row.length} cells, the data set ${set.columns.length} columns`,
        });
      row.forEach((cell, column) => {
        if (cellBytes(cell) > maxDataSetCellBytes)
          ctx.addIssue({
            code: 'custom',
            path: ['rows', index, column],
            message: `row ${index + 1}, column "${set.columns[column] ?? column}" is over ${maxDataSetCellBytes} bytes`,
          });
      });
    });
  });
export type DataSet = z.infer<typeof dataSet>;

/** One row as a test run sees it: its position, its name and its cells by column. */
export interface DataRow {
  index: number;
  name: string;
  values: Record<string, string>;
}

/**
 * The rows of a data set with their names: the `nameColumn` cell (default: the first column),
 * `row <n>` when that cell is empty, and `<name> (row <n>)` for a name an earlier row took, so
 * every row's title is unique.
 */
export function dataRows(set: DataSet): DataRow[] {
  const nameAt = Math.max(0, set.nameColumn ? set.columns.indexOf(set.nameColumn) : 0);
  const used = new Set<string>();
  return set.rows.map((row, index) => {
    const cell = (row[nameAt] ?? '').trim().replace(/\s+/g, ' ').slice(0, 100);
    let name = cell === '' ? `row ${index + 1}` : cell;
    if (used.has(name)) name = `${name} (row ${index + 1})`;
    used.add(name);
    const values: Record<string, string> = {};
    set.columns.forEach((column, at) => {
      values[column] = row[at] ?? '';
    });
    return { index, name, values };
  });
}

const DATA_REFERENCE = /\{\{\s*data\.([^}\s]*)\s*\}\}/g;

/** The columns a text reads as `{{data.<column>}}`, in order of appearance. */
export function dataReferences(text: string): string[] {
  return [...text.matchAll(DATA_REFERENCE)].map((match) => match[1] ?? '');
}

/** A result's data row (additive on run results): which row of the test's data set it ran. */
export const dataRowRef = z.object({ index: z.number().int(), name: z.string() });
export type DataRowRef = z.infer<typeof dataRowRef>;
