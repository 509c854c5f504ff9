import { type DataSet, dataReferences } from '@stepdeck/contract';
import { appError } from '../../errors.ts';

/** A step as the check reads it: its name, its action's fields and its children. */
interface ReadStep {
  name: string;
  action: unknown;
  sharedRef?: string;
  children: ReadStep[];
}

/** Every string inside an action's fields (templating applies to strings only). */
function stringsOf(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsOf(item, out);
  return out;
}

/**
 * Refuses a test whose own steps read a `{{data.<column>}}` its data set lacks (or that has no
 * data set at all): the first such step and column, by name. Shared steps referenced as they
 * are serve many tests and are not checked here; the run fails the row that lacks the column.
 */
export function requireDataColumns(steps: readonly ReadStep[], set: DataSet | null): void {
  const columns = new Set(set?.columns ?? []);
  const visit = (list: readonly ReadStep[]) => {
    for (const step of list) {
      if (step.sharedRef) continue;
      for (const text of stringsOf(step.action, []))
        for (const column of dataReferences(text)) {
          if (columns.has(column)) continue;
          throw appError(
            'TEST_DATA_INVALID',
            set
              ? `step "${step.name}" reads {{data.${column}}}: the data set has no column "${column}" (its columns: ${set.columns.join(', ')})`
              : `step "${step.name}" reads {{data.${column}}} but the test has no data set`,
          );
        }
      visit(step.children);
    }
  };
  visit(steps);
}
