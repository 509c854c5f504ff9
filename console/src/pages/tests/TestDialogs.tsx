import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { maxTestNameLength } from '../../lib/limits.ts';
import type { TestItem } from '../../lib/test-tree.ts';

const nameOf = (form: FormData) => String(form.get('name') ?? '').trim();

/** New test or directory, in the root or a chosen directory. */
export function CreateTestDialog(props: {
  scope: ProjectScope;
  directory: boolean;
  directories: TestItem[];
  /** The directories are still being listed (the whole tree loads when the dialog opens). */
  directoriesLoading: boolean;
  /** A directory was created in this directory (null: the top level), so the tree can show it there. */
  onCreated(parentTestId: string | null): void;
  /** A test was created in this directory: its editor opens (a new test has no steps to see in the tree). */
  onOpen(testId: string, parentTestId: string | null): void;
  onClose(): void;
}) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (form: FormData) => {
      const parent = String(form.get('parent') ?? '');
      return authoringApi.createTest(props.scope, {
        name: nameOf(form),
        directory: props.directory,
        status: props.directory ? 'active' : (String(form.get('status')) as 'draft' | 'active'),
        parentTestId: parent || null,
      });
    },
    onSuccess: async (created, form) => {
      if (!props.directory) {
        void queryClient.invalidateQueries({ queryKey: ['tests'] });
        props.onOpen(created.data.id, String(form.get('parent') ?? '') || null);
        return;
      }
      props.onCreated(String(form.get('parent') ?? '') || null);
      await queryClient.invalidateQueries({ queryKey: ['tests'] });
      props.onClose();
    },
  });
  const kind = props.directory ? 'directory' : 'test';
  return (
    <Dialog title={`New ${kind}`} onClose={props.onClose}>
      <form
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          create.mutate(new FormData(event.currentTarget));
        }}
      >
        <div className="field">
          <label htmlFor="create-name">Name</label>
          <input id="create-name" name="name" required maxLength={maxTestNameLength} />
        </div>
        <div className="field">
          <label htmlFor="create-parent">In directory</label>
          <select id="create-parent" name="parent" defaultValue="" aria-busy={props.directoriesLoading}>
            <option value="">(top level)</option>
            {props.directories.map((directory) => (
              <option key={directory.id} value={directory.id}>
                {directory.name}
              </option>
            ))}
          </select>
        </div>
        {props.directory ? null : (
          <div className="field">
            <label htmlFor="create-status">Status</label>
            <select id="create-status" name="status" defaultValue="draft">
              <option>draft</option>
              <option>active</option>
            </select>
          </div>
        )}
        {create.error ? <ErrorMessage error={create.error} title={`Could not create the ${kind}`} /> : null}
        <div className="dialog-buttons">
          <button type="submit" disabled={create.isPending}>
            Create {kind}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function RenameTestDialog(props: { scope: ProjectScope; test: TestItem; onClose(): void }) {
  const queryClient = useQueryClient();
  const rename = useMutation({
    mutationFn: (name: string) => authoringApi.updateTest(props.scope, props.test.id, { name }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['tests'] });
      props.onClose();
    },
  });
  return (
    <Dialog title={`Rename ${props.test.name}`} onClose={props.onClose}>
      <form
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          rename.mutate(nameOf(new FormData(event.currentTarget)));
        }}
      >
        <div className="field">
          <label htmlFor="rename-name">New name</label>
          <input
            id="rename-name"
            name="name"
            required
            maxLength={maxTestNameLength}
            defaultValue={props.test.name}
          />
        </div>
        {rename.error ? <ErrorMessage error={rename.error} title="Could not rename" /> : null}
        <div className="dialog-buttons">
          <button type="submit" disabled={rename.isPending}>
            Rename
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * Deleting names everything that goes: the tests themselves and, for directories, every
 * descendant. The API's refusal (an active schedule uses the test) is shown as it says it.
 */
export function DeleteTestsDialog(props: {
  scope: ProjectScope;
  tests: TestItem[];
  /** Everything inside the chosen directories; undefined while it is being listed. */
  descendants: TestItem[] | undefined;
  descendantsError: unknown;
  onClose(): void;
  onDeleted(): void;
}) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>();
  const remove = useMutation({
    mutationFn: async () => {
      const [only] = props.tests;
      if (props.tests.length === 1 && only) await authoringApi.deleteTest(props.scope, only.id);
      else await authoringApi.bulkDelete(props.scope, { testIds: props.tests.map((test) => test.id) });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['tests'] });
      props.onDeleted();
      props.onClose();
    },
    onError: setError,
  });
  const [first] = props.tests;
  const { descendants } = props;
  const title =
    props.tests.length === 1 && first
      ? `Delete ${first.directory ? 'directory' : 'test'} ${first.name}?`
      : `Delete ${props.tests.length} tests?`;
  return (
    <Dialog title={title} onClose={props.onClose}>
      <p>This deletes:</p>
      <ul className="doomed">
        {props.tests.map((test) => (
          <li key={test.id}>
            {test.name}
            {test.directory ? ' (directory)' : ''}
          </li>
        ))}
      </ul>
      {descendants === undefined ? (
        <p role="status">Listing what is inside…</p>
      ) : descendants.length > 0 ? (
        <>
          <p>
            and everything inside: {descendants.length} {descendants.length === 1 ? 'item' : 'items'}
          </p>
          <ul className="doomed">
            {descendants.map((test) => (
              <li key={test.id}>{test.name}</li>
            ))}
          </ul>
        </>
      ) : null}
      {props.descendantsError && !remove.isSuccess ? (
        <ErrorMessage error={props.descendantsError} title="Could not list what is inside" />
      ) : null}
      {error ? <ErrorMessage error={error} title="Not deleted" /> : null}
      <div className="dialog-buttons">
        <button
          type="button"
          className="danger"
          // Nothing goes before the dialog has named all of it.
          disabled={remove.isPending || descendants === undefined}
          onClick={() => remove.mutate()}
        >
          Delete
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
