import { runConfig } from '@stepdeck/contract';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { ProjectScope } from '../../api/client.ts';
import { api } from '../../api/endpoints.ts';
import { EnvironmentSelect } from '../../components/admin/EnvironmentSelect.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { RunConfigPanel } from './RunConfigPanel.tsx';

/**
 * Runs the saved test, optionally with a configuration override for this run only (the
 * remote-run's `config`); an empty override sends none. Opens the run's page on success.
 */
export function RunDialog(props: {
  scope: ProjectScope & { branchQuery: string };
  testId: string;
  onClose(): void;
}) {
  const navigate = useNavigate();
  const [override, setOverride] = useState<Record<string, unknown>>({});
  const [environment, setEnvironment] = useState('');
  const valid = runConfig.safeParse(override).success;
  const run = useMutation({
    mutationFn: () =>
      api.runTest(
        props.scope,
        props.testId,
        Object.keys(override).length > 0 ? override : undefined,
        environment || undefined,
      ),
    onSuccess: (result) =>
      void navigate(`/projects/${props.scope.projectId}/runs/${result.data.runId}${props.scope.branchQuery}`),
  });
  return (
    <Dialog title="Run this test" onClose={props.onClose}>
      <p>
        The run uses the saved configuration. An environment sets its base URL, variables and secrets; fields
        set below override it for this run only; empty fields keep the saved value.
      </p>
      <EnvironmentSelect value={environment} onChange={setEnvironment} />
      <RunConfigPanel config={override} onChange={setOverride} summary="Override for this run" />
      {run.error ? <ErrorMessage error={run.error} title="Could not run" /> : null}
      <div className="dialog-buttons">
        <button type="button" disabled={!valid || run.isPending} onClick={() => run.mutate()}>
          Run
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
