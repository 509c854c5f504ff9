import { stepTree } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { fromWire } from '../../lib/step-tree-edit.ts';
import { SharedStepDialog } from './SharedStepDialog.tsx';
import { StepsTree } from './StepsTree.tsx';

/**
 * A shared step used by this test: who else uses it (shown before anything about editing it),
 * its steps, and the copy-on-write rule: changing it changes every test on this branch that
 * uses it, while other branches keep their own copy.
 */
export function SharedStepPanel(props: {
  scope: ProjectScope;
  stepId: string;
  testId: string;
  editorDirty: boolean;
  onSharedSaved(): void;
}) {
  const { scope, stepId } = props;
  const usage = useQuery({
    queryKey: ['shared-steps', scope.projectId, scope.branchId, 'usage', stepId],
    queryFn: () => authoringApi.stepUsage(scope, stepId),
  });
  const children = useQuery({
    queryKey: ['shared-steps', scope.projectId, scope.branchId, 'children', stepId],
    queryFn: () => authoringApi.stepChildren(scope, stepId),
  });
  const users = usage.data?.data ?? [];
  const [managing, setManaging] = useState(false);
  return (
    <div className="shared-panel">
      <h3>Shared step</h3>
      {usage.error ? <ErrorMessage error={usage.error} title="Could not read its usage" /> : null}
      <p>
        Used by {users.length} {users.length === 1 ? 'test' : 'tests'} on this branch
        {users.length ? `: ${users.map((user) => user.name).join(', ')}` : ''}.
      </p>
      <p className="muted">
        Editing a shared step changes it for every test on this branch that uses it; tests on other branches
        keep their copy (copy-on-write).
      </p>
      <button type="button" onClick={() => setManaging(true)}>
        Manage shared step…
      </button>
      {managing ? (
        <SharedStepDialog
          scope={scope}
          step={{ id: stepId, name: children.data?.data.step.name ?? '' }}
          onClose={() => setManaging(false)}
          editing={{ testId: props.testId, editorDirty: props.editorDirty, onSaved: props.onSharedSaved }}
        />
      ) : null}
      {children.data ? (
        <StepsTree
          steps={fromWire(stepTree.parse(children.data.data.children))}
          selectedKey={undefined}
          invalidKeys={new Set()}
          onSelect={() => undefined}
          onKeyMove={() => undefined}
          onDrop={() => undefined}
          readOnly
        />
      ) : null}
    </div>
  );
}
