import { stepStillUsedBody } from '@stepdeck/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { ApiErrorWithBody } from '../../api/forms.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { maxStepNameLength } from '../../lib/limits.ts';
import { SharedChildrenEditor, type SharedEditing } from './SharedChildrenEditor.tsx';

/**
 * Managing a shared step: who uses it comes first, then the copy-on-write rule, then rename, its
 * steps (replaced whole, with the editor's parts) and delete. Delete is refused by the service while any test on any branch uses it; the refusal's
 * list of users is shown as such.
 */
export function SharedStepDialog(props: {
  scope: ProjectScope;
  step: { id: string; name: string };
  onClose(): void;
  onDeleted?(): void;
  editing?: SharedEditing | undefined;
}) {
  const { scope } = props;
  // A save of its steps may give this branch its own copy (copy-on-write): from then on the
  // dialog manages the copy, which is what this branch's tests use.
  const [copiedTo, setCopiedTo] = useState<string>();
  const step = { ...props.step, id: copiedTo ?? props.step.id };
  const queryClient = useQueryClient();
  const [stillUsed, setStillUsed] = useState<ReturnType<typeof stepStillUsedBody.parse>>();
  const usage = useQuery({
    queryKey: ['shared-steps', scope.projectId, scope.branchId, 'usage', step.id],
    queryFn: () => authoringApi.stepUsage(scope, step.id),
    placeholderData: keepPreviousData,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['shared-steps', scope.projectId] });
  const rename = useMutation({
    mutationFn: (name: string) => authoringApi.renameSharedStep(scope, step.id, name),
    onSuccess: async () => {
      await refresh();
      await queryClient.invalidateQueries({ queryKey: ['tests', scope.projectId] });
    },
  });
  const remove = useMutation({
    mutationFn: () => authoringApi.deleteSharedStep(scope, step.id),
    onSuccess: async () => {
      await refresh();
      props.onDeleted?.();
      props.onClose();
    },
    onError: (error) => {
      const body = error instanceof ApiErrorWithBody ? stepStillUsedBody.safeParse(error.body) : undefined;
      setStillUsed(body?.success ? body.data : undefined);
    },
  });
  const users = usage.data?.data ?? [];
  return (
    <Dialog title={`Shared step ${step.name}`} onClose={props.onClose}>
      {usage.error ? <ErrorMessage error={usage.error} title="Could not read its usage" /> : null}
      <p>
        {usage.isPending
          ? 'Reading its usage…'
          : `Used by ${users.length} ${users.length === 1 ? 'test' : 'tests'} on this branch${users.length ? `: ${users.map((user) => user.name).join(', ')}` : ''}.`}
      </p>
      <p className="muted">
        A change here applies to every test on this branch that uses it. Tests on other branches keep the
        version they have (copy-on-write): the service copies the step instead of changing theirs.
      </p>
      <form
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          rename.mutate(String(new FormData(event.currentTarget).get('name') ?? '').trim());
        }}
      >
        <div className="field">
          <label htmlFor="shared-step-name">Name</label>
          <input
            id="shared-step-name"
            name="name"
            required
            maxLength={maxStepNameLength}
            defaultValue={step.name}
          />
        </div>
        <button type="submit" disabled={rename.isPending}>
          Rename shared step
        </button>
        {rename.isSuccess ? <p role="status">Renamed to {rename.data.data.name}</p> : null}
        {rename.error ? <ErrorMessage error={rename.error} title="Not renamed" /> : null}
      </form>
      {usage.data ? (
        <SharedChildrenEditor
          scope={scope}
          step={step}
          users={users}
          editing={props.editing}
          onCopied={setCopiedTo}
        />
      ) : null}
      {remove.error ? (
        <div role="alert" className="error-box">
          <strong>
            Not deleted ({remove.error instanceof ApiErrorWithBody ? remove.error.status : 'error'})
          </strong>
          <p>{remove.error.message}</p>
          {stillUsed && stillUsed.tests.length > 0 ? (
            <ul aria-label="Still used by">
              {stillUsed.tests.map((test) => (
                <li key={`${test.id}:${test.branchId}`}>
                  {test.name} <span className="muted">(branch {test.branchName})</span>
                </li>
              ))}
            </ul>
          ) : null}
          {stillUsed && stillUsed.sharedGroups.length > 0 ? (
            <p>and {stillUsed.sharedGroups.length} shared group(s)</p>
          ) : null}
        </div>
      ) : null}
      <div className="dialog-buttons">
        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
          Delete shared step
        </button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
