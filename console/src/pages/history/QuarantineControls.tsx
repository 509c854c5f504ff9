import type { TestQuarantine } from '@stepdeck/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ProjectScope } from '../../api/client.ts';
import { historyApi, historyKeys } from '../../api/history.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';

/**
 * Put a test in quarantine (a reason, optionally an owner and an expiry) or release it. A
 * quarantined test still runs and is reported; the action and CLI leave its failures out of
 * `fail-on`.
 */
export function QuarantineControls(props: {
  scope: ProjectScope;
  testId: string;
  testName: string;
  quarantine: TestQuarantine | null;
  canChange: boolean;
}) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: historyKeys.all(props.scope.projectId) });
  const put = useMutation({
    mutationFn: (body: { reason: string; owner?: string; expiresAt?: string }) =>
      historyApi.quarantine(props.scope, props.testId, body),
    onSuccess: async () => {
      setOpen(false);
      await refresh();
    },
  });
  const release = useMutation({
    mutationFn: () => historyApi.release(props.scope, props.testId),
    onSuccess: refresh,
  });
  if (!props.canChange) return null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const owner = String(form.get('owner') ?? '').trim();
    const expires = String(form.get('expires') ?? '');
    put.mutate({
      reason: String(form.get('reason') ?? ''),
      ...(owner ? { owner } : {}),
      // A date picked in the browser ends at the end of that day, in the viewer's zone.
      ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
    });
  };
  return (
    <div className="quarantine-controls">
      {props.quarantine ? (
        <button type="button" onClick={() => release.mutate()} disabled={release.isPending}>
          Release from quarantine
        </button>
      ) : (
        <button type="button" onClick={() => setOpen(true)}>
          Quarantine…
        </button>
      )}
      {release.error ? <ErrorMessage error={release.error} title="Could not release the test" /> : null}
      {open ? (
        <Dialog title={`Quarantine “${props.testName}”`} onClose={() => setOpen(false)}>
          <p>
            The test keeps running and being reported; the GitHub Action and the CLI stop failing on it until
            it is released, by hand or once it passes reliably again.
          </p>
          <form onSubmit={submit}>
            <div className="field">
              <label htmlFor="quarantine-reason">Reason</label>
              <input id="quarantine-reason" name="reason" required maxLength={500} />
            </div>
            <div className="field">
              <label htmlFor="quarantine-owner">Owner (optional)</label>
              <input id="quarantine-owner" name="owner" maxLength={200} placeholder="a person or a team" />
            </div>
            <div className="field">
              <label htmlFor="quarantine-expires">Expires (optional, end of that day)</label>
              <input id="quarantine-expires" name="expires" type="date" />
            </div>
            {put.error ? <ErrorMessage error={put.error} title="Could not quarantine the test" /> : null}
            <div className="dialog-buttons">
              <button type="submit" disabled={put.isPending}>
                Quarantine
              </button>
              <button type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
            </div>
          </form>
        </Dialog>
      ) : null}
    </div>
  );
}
