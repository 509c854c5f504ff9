import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { descendantsOf, type TestItem, visibleRows } from '../../lib/test-tree.ts';

const topLevel = '';

/**
 * Moves tests (one each request: `PUT /v1/tests/:id` with `parentTestId`) into a directory picked
 * from the tree. The choices are radio buttons, so arrow keys walk the tree; a directory being
 * moved and everything inside it cannot be picked (the service refuses those moves as well).
 */
export function MoveDialog(props: {
  scope: ProjectScope;
  tests: TestItem[];
  /** The whole tree (the dialog opens at once; the choices appear when it has loaded). */
  everything: TestItem[] | undefined;
  onClose(): void;
  onMoved(message: string): void;
}) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>();
  const moving = new Set(props.tests.map((test) => test.id));
  const everything = props.everything ?? [];
  const inside = new Set<string>();
  for (const test of props.tests)
    if (test.directory) for (const below of descendantsOf(everything, test.id)) inside.add(below.id);
  const blocked = new Set([...moving, ...inside]);
  // A selected test inside a selected directory travels with the directory, not on its own.
  const roots = props.tests.filter((test) => !inside.has(test.id));
  const directories = visibleRows(everything, new Set()).filter(({ test }) => test.directory);
  const move = useMutation({
    mutationFn: (target: string) => moveAll(props.scope, roots, target || null),
    onSuccess: async (_result, target) => {
      await queryClient.invalidateQueries({ queryKey: ['tests'] });
      const where = target ? everything.find((test) => test.id === target)?.name : 'the top level';
      props.onMoved(`Moved ${props.tests.map((test) => test.name).join(', ')} to ${where}`);
      props.onClose();
    },
    onError: setError,
  });
  const [first] = props.tests;
  const title = props.tests.length === 1 && first ? `Move ${first.name}` : `Move ${props.tests.length} tests`;
  return (
    <Dialog title={title} onClose={props.onClose}>
      <form
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          move.mutate(String(new FormData(event.currentTarget).get('target') ?? topLevel));
        }}
      >
        <fieldset className="move-targets">
          <legend>Target directory</legend>
          <label className="authoring-choice">
            <input type="radio" name="target" value={topLevel} defaultChecked />
            (top level)
          </label>
          {directories.map(({ test, depth }) => (
            <label
              key={test.id}
              className="authoring-choice"
              style={{ paddingLeft: `${(depth + 1) * 1.25}rem` }}
            >
              <input type="radio" name="target" value={test.id} disabled={blocked.has(test.id)} />
              {test.name}/
            </label>
          ))}
          {props.everything ? null : <p role="status">Listing the directories…</p>}
        </fieldset>
        {error ? <ErrorMessage error={error} title="Not moved" /> : null}
        <div className="dialog-buttons">
          <button type="submit" disabled={move.isPending || !props.everything}>
            Move
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** One request per test, in order; the first refusal stops the rest and is shown. */
export async function moveAll(scope: ProjectScope, tests: TestItem[], target: string | null) {
  for (const test of tests) {
    if (test.parentTestId === target) continue;
    await authoringApi.move(scope, test.id, target);
  }
}
