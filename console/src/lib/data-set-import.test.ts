import { dataSet } from '@stepdeck/contract';
import { describe, expect, it } from 'vitest';
import {
  columnNameOf,
  dataSetFromCsv,
  dataSetFromFile,
  dataSetFromJson,
  parseCsv,
} from './data-set-import.ts';

describe('parseCsv (RFC 4180)', () => {
  it('splits records on CRLF or LF and fields on commas, keeping empty fields', () => {
    expect(parseCsv('a,b,c\r\n1,,3\n4,5,\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '', '3'],
      ['4', '5', ''],
    ]);
  });

  it('reads quoted fields holding commas, doubled quotes and line breaks', () => {
    expect(parseCsv('name,note\n"Doe, Jane","said ""hi""\nthen left"\n')).toEqual([
      ['name', 'note'],
      ['Doe, Jane', 'said "hi"\nthen left'],
    ]);
  });

  it('skips a byte order mark and blank lines, and keeps a last record without a line break', () => {
    expect(parseCsv('\uFEFFa\n\nx')).toEqual([['a'], ['x']]);
    expect(parseCsv('')).toEqual([]);
  });

  it('refuses an unclosed quote and stray quotes, saying where', () => {
    expect(() => parseCsv('a\n"open')).toThrow('a quoted field is not closed');
    expect(() => parseCsv('a\nb"c')).toThrow('a quote inside an unquoted field (record 2)');
    expect(() => parseCsv('"a"b')).toThrow('a closing quote must end its field (record 1)');
  });
});

describe('data sets from files', () => {
  it('takes the CSV header as column names, made valid', () => {
    const set = dataSetFromCsv('user,First name,2fa\nada,Ada,yes\nbob,Bob\n');
    expect(set).toEqual({
      columns: ['user', 'First_name', '_2fa'],
      rows: [
        ['ada', 'Ada', 'yes'],
        ['bob', 'Bob', ''],
      ],
    });
    expect(dataSet.safeParse(set).success).toBe(true);
    expect(columnNameOf('***', 4)).toBe('_');
  });

  it('reads JSON as an array of objects or as columns and rows', () => {
    expect(dataSetFromJson('[{"user":"ada","age":36},{"user":"bob","admin":true}]')).toEqual({
      columns: ['user', 'age', 'admin'],
      rows: [
        ['ada', '36', ''],
        ['bob', '', 'true'],
      ],
    });
    expect(dataSetFromJson('{"columns":["a"],"rows":[["1"],["2"]]}')).toEqual({
      columns: ['a'],
      rows: [['1'], ['2']],
    });
    expect(() => dataSetFromJson('[1]')).toThrow('every item of the array must be an object');
    expect(() => dataSetFromJson('{')).toThrow('not valid JSON');
  });

  it('picks the format by file name', () => {
    expect(dataSetFromFile('users.json', '', '[{"a":"1"}]').rows).toEqual([['1']]);
    expect(dataSetFromFile('users.csv', 'text/csv', 'a\n1').rows).toEqual([['1']]);
  });
});
