import { describe, expect, it } from 'vitest';
import { createTestData, dataReferences, dataRows, dataSet, updateTestData } from '../src/index.ts';

const messages = (value: unknown) => {
  const result = dataSet.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

describe('dataSet', () => {
  it('takes columns and rows of strings, with an optional name column', () => {
    const set = {
      columns: ['user', 'password'],
      rows: [
        ['alice', 'a1'],
        ['bob', 'b2'],
      ],
      nameColumn: 'user',
    };
    expect(dataSet.parse(set)).toEqual(set);
    expect(createTestData.parse({ name: 't', dataSet: set }).dataSet).toEqual(set);
    expect(updateTestData.parse({ dataSet: null }).dataSet).toBeNull();
  });

  it('refuses bad column names, duplicates, ragged rows and an unknown name column, naming each', () => {
    expect(messages({ columns: ['1st'], rows: [['x']] })[0]).toContain('starts with a letter or _');
    expect(messages({ columns: ['a', 'a'], rows: [['x', 'y']] })).toContain('column "a" appears twice');
    expect(messages({ columns: ['a', 'b'], rows: [['x']] })).toContain(
      'row 1 has 1 cells, the data set 2 columns',
    );
    expect(messages({ columns: ['a'], rows: [['x']], nameColumn: 'b' })).toContain(
      'nameColumn "b" is not one of the columns',
    );
    expect(messages({ columns: ['a'], rows: [[1]] })).toContain('a cell must be a string');
    expect(messages({ columns: [], rows: [] })).toEqual([
      'a data set needs at least one column',
      'a data set needs at least one row',
    ]);
  });

  it('holds at most 200 rows, 32 columns and 4 KB a cell', () => {
    expect(messages({ columns: ['a'], rows: Array.from({ length: 201 }, () => ['x']) })).toContain(
      'a data set has at most 200 rows',
    );
    const wide = Array.from({ length: 33 }, (_, i) => `c${i}`);
    expect(messages({ columns: wide, rows: [wide] })).toContain('a data set has at most 32 columns');
    expect(messages({ columns: ['a'], rows: [['é'.repeat(2049)]] })).toContain(
      'row 1, column "a" is over 4096 bytes',
    );
    expect(messages({ columns: ['a'], rows: [['x'.repeat(4096)]] })).toEqual([]);
  });
});

describe('dataRows', () => {
  it('names rows by the name column, else the first; empty and repeated names stay unique', () => {
    const rows = dataRows({
      columns: ['id', 'user'],
      rows: [
        ['1', 'alice'],
        ['2', ''],
        ['3', 'alice'],
      ],
      nameColumn: 'user',
    });
    expect(rows.map((row) => row.name)).toEqual(['alice', 'row 2', 'alice (row 3)']);
    expect(rows[0]).toEqual({ index: 0, name: 'alice', values: { id: '1', user: 'alice' } });
    expect(dataRows({ columns: ['id'], rows: [['7']] })[0]?.name).toBe('7');
  });

  it('finds the columns a text reads', () => {
    expect(dataReferences('{{data.user}} and {{ data.pass }} but not {{vars.x}}')).toEqual(['user', 'pass']);
  });
});
