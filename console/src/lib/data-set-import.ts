import { type DataSet, dataColumnName } from '@stepdeck/contract';

/**
 * Reading a data set from a file the user picks: CSV (RFC 4180, the first record names the
 * columns) or JSON (an array of objects, or `{ columns, rows }`). No CSV library is installed
 * in the console, so the parser is here, small and strict about quotes.
 */

/** The records of a CSV text: fields split on commas, quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // A field that has started (even empty) belongs to the record; a blank line holds none.
  let started = false;
  const endField = () => {
    record.push(field);
    field = '';
    started = false;
  };
  const endRecord = () => {
    if (record.length > 0 || started || field !== '') endField();
    // A blank line is no record.
    if (record.length > 1 || (record.length === 1 && record[0] !== '')) records.push(record);
    record = [];
  };
  while (at < text.length) {
    const char = text[at] as string;
    if (quoted) {
      if (char === '"') {
        if (text[at + 1] === '"') {
          field += '"';
          at += 2;
          continue;
        }
        quoted = false;
        at += 1;
        const next = text[at];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r')
          throw new Error(`CSV: a closing quote must end its field (record ${records.length + 1})`);
        continue;
      }
      field += char;
      at += 1;
      continue;
    }
    if (char === '"' && field === '') {
      quoted = true;
      started = true;
      at += 1;
    } else if (char === ',') {
      endField();
      started = true;
      at += 1;
    } else if (char === '\r' || char === '\n') {
      endRecord();
      at += char === '\r' && text[at + 1] === '\n' ? 2 : 1;
    } else {
      if (char === '"')
        throw new Error(`CSV: a quote inside an unquoted field (record ${records.length + 1})`);
      field += char;
      started = true;
      at += 1;
    }
  }
  if (quoted) throw new Error('CSV: a quoted field is not closed');
  endRecord();
  return records;
}

/** A header cell as a column name: spaces and other characters become `_` (`First name` → `First_name`). */
export function columnNameOf(header: string, index: number): string {
  let name = header
    .trim()
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .slice(0, 64);
  if (!/^[A-Za-z_]/.test(name)) name = `_${name}`.slice(0, 64);
  return dataColumnName.test(name) ? name : `column${index + 1}`;
}

function fromRecords(header: string[], body: string[][]): DataSet {
  const columns = header.map(columnNameOf);
  return {
    columns,
    rows: body.map((record) => columns.map((_column, at) => record[at] ?? '')),
  };
}

/** A data set from a CSV text (first record: the column names). */
export function dataSetFromCsv(text: string): DataSet {
  const [header, ...body] = parseCsv(text);
  if (!header) throw new Error('CSV: the file is empty');
  return fromRecords(header, body);
}

const cellText = (value: unknown) =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** A data set from JSON: an array of objects (their keys are the columns) or `{ columns, rows }`. */
export function dataSetFromJson(text: string): DataSet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('JSON: the file is not valid JSON');
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const { columns, rows } = parsed as { columns?: unknown; rows?: unknown };
    if (!Array.isArray(columns) || !Array.isArray(rows))
      throw new Error('JSON: expected an array of objects, or { "columns": [...], "rows": [[...]] }');
    return fromRecords(
      columns.map(cellText),
      rows.map((row) => (Array.isArray(row) ? row.map(cellText) : [])),
    );
  }
  if (!Array.isArray(parsed)) throw new Error('JSON: expected an array of objects');
  const keys: string[] = [];
  for (const item of parsed) {
    if (!item || typeof item !== 'object' || Array.isArray(item))
      throw new Error('JSON: every item of the array must be an object');
    for (const key of Object.keys(item)) if (!keys.includes(key)) keys.push(key);
  }
  return fromRecords(
    keys,
    parsed.map((item: Record<string, unknown>) => keys.map((key) => cellText(item[key]))),
  );
}

/** A data set from a picked file: JSON by its name or content type, CSV otherwise. */
export function dataSetFromFile(name: string, type: string, text: string): DataSet {
  return /\.json$/i.test(name) || type === 'application/json' ? dataSetFromJson(text) : dataSetFromCsv(text);
}
