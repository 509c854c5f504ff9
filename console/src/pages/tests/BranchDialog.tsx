import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { authoringApi } from '../../api/authoring.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';

/** A new branch from the branch in view (its tests are copied); the console then switches to it. */
export function CreateBranchDialog(props: {
  projectId: string;
  sourceBranchId: string | undefined;
  onClose(): void;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () =>
      authoringApi.createBranch(props.projectId, {
        name: name.trim(),
        ...(props.sourceBranchId ? { sourceBranchId: props.sourceBranchId } : {}),
      }),
    onSuccess: async (result) => {
      await queryClient.invalidateQueries({ queryKey: ['branches', props.projectId] });
      props.onClose();
      void navigate({ search: `?branch=${result.data.id}` });
    },
  });
  return (
    <Dialog title="New branch" onClose={props.onClose}>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <div className="field">
          <label htmlFor="branch-name">Branch name</label>
          <input id="branch-name" required value={name} onChange={(event) => setName(event.target.value)} />
        </div>
        <p className="muted">It starts as a copy of the branch you are on.</p>
        {create.error ? <ErrorMessage error={create.error} title="Could not create the branch" /> : null}
        <div className="dialog-buttons">
          <button type="submit" disabled={create.isPending}>
            Create branch
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
