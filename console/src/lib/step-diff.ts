import type { StepTreeItem } from '@stepdeck/contract';

/** One line per step (its place, name and action), the unit a revision diff compares. */
export function stepLines(steps: readonly StepTreeItem[], prefix = ''): string[] {
  return steps.flatMap((step, index) => {
    const { name: actionName, ...fields } = step.action;
    const place = `${prefix}${index + 1}`;
    const detail = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
    const line = `${place}. ${step.name ?? ''} [${actionName}${step.shared ? ', shared' : ''}]${detail}`;
    return [line, ...stepLines(step.children ?? [], `${place}.`)];
  });
}

export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** A line diff (longest common subsequence): what the revision had that the working state lacks, and back. */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  const rows = before.length;
  const cols = after.length;
  const lcs: number[][] = Array.from({ length: rows + 1 }, () => new Array<number>(cols + 1).fill(0));
  for (let i = rows - 1; i >= 0; i--)
    for (let j = cols - 1; j >= 0; j--)
      (lcs[i] as number[])[j] =
        before[i] === after[j]
          ? ((lcs[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((lcs[i + 1] as number[])[j] as number, (lcs[i] as number[])[j + 1] as number);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < rows && j < cols) {
    if (before[i] === after[j]) {
      out.push({ kind: 'same', text: before[i] as string });
      i++;
      j++;
    } else if (((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number)) {
      out.push({ kind: 'removed', text: before[i++] as string });
    } else {
      out.push({ kind: 'added', text: after[j++] as string });
    }
  }
  while (i < rows) out.push({ kind: 'removed', text: before[i++] as string });
  while (j < cols) out.push({ kind: 'added', text: after[j++] as string });
  return out;
}
