import { stepTree } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { maxRevisionMessageLength } from '../../lib/limits.ts';
import { diffLines, stepLines } from '../../lib/step-diff.ts';
import { fromWire, toWire } from '../../lib/step-tree-edit.ts';
import { StepsTree } from './StepsTree.tsx';

/** Saved revisions of the test on this branch: save one, view one read-only with its diff, restore one. */
export function RevisionsPanel(props: {
  scope: ProjectScope;
  testId: string;
  dirty: boolean;
  onRestored(): void;
}) {
  const { scope, testId } = props;
  const id = useId();
  const queryClient = useQueryClient();
  const [message, setMessage] = useState('');
  const [viewing, setViewing] = useState<string>();
  const listKey = ['tests', scope.projectId, scope.branchId, 'revisions', testId];
  const revisions = useQuery({ queryKey: listKey, queryFn: () => authoringApi.revisions(scope, testId) });
  const saveRevision = useMutation({
    mutationFn: () => authoringApi.saveRevision(scope, testId, message.trim()),
    onSuccess: async () => {
      setMessage('');
      await queryClient.invalidateQueries({ queryKey: listKey });
    },
  });
  return (
    <section aria-labelledby={`${id}-heading`} className="revisions">
      <h2 id={`${id}-heading`}>Revisions</h2>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          saveRevision.mutate();
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-message`}>Revision message</label>
          <input
            id={`${id}-message`}
            value={message}
            maxLength={maxRevisionMessageLength}
            onChange={(event) => setMessage(event.target.value)}
          />
        </div>
        {/* A revision snapshots the saved working state: unsaved edits are saved first. */}
        <button type="submit" disabled={props.dirty || !message.trim() || saveRevision.isPending}>
          Save revision
        </button>
        {props.dirty ? <span className="muted"> Save your changes first.</span> : null}
      </form>
      {saveRevision.error ? <ErrorMessage error={saveRevision.error} title="Revision not saved" /> : null}
      {revisions.error ? <ErrorMessage error={revisions.error} title="Could not list revisions" /> : null}
      <ol className="revision-list" aria-label="Revision history, newest first">
        {(revisions.data?.data ?? []).map((revision) => (
          <li key={revision.id}>
            <button type="button" onClick={() => setViewing(revision.id)}>
              {revision.message}
            </button>{' '}
            <span className="muted">
              <Timestamp iso={revision.createdAt} />
            </span>
          </li>
        ))}
      </ol>
      {revisions.data?.data.length === 0 ? <p className="muted">No revision saved yet.</p> : null}
      {viewing ? (
        <RevisionDialog
          scope={scope}
          testId={testId}
          revisionId={viewing}
          dirty={props.dirty}
          onClose={() => setViewing(undefined)}
          onRestored={() => {
            setViewing(undefined);
            props.onRestored();
          }}
        />
      ) : null}
    </section>
  );
}

function RevisionDialog(props: {
  scope: ProjectScope;
  testId: string;
  revisionId: string;
  dirty: boolean;
  onClose(): void;
  onRestored(): void;
}) {
  const { scope, testId } = props;
  const revision = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId, 'revision', testId, props.revisionId],
    queryFn: () => authoringApi.revision(scope, testId, props.revisionId),
  });
  const working = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId, 'detail', testId],
    queryFn: () => authoringApi.test(scope, testId),
  });
  const restore = useMutation({
    mutationFn: async () => {
      if (!revision.data || !working.data) return;
      // Restoring writes the revision's steps into the working state (checked against editVersion).
      await authoringApi.updateTest(scope, testId, {
        steps: toWire(fromWire(stepTree.parse(revision.data.data.steps))) as Array<Record<string, unknown>>,
        editVersion: working.data.test.editVersion,
      });
    },
    onSuccess: props.onRestored,
  });
  const saved = revision.data ? stepTree.parse(revision.data.data.steps) : undefined;
  const current = working.data ? stepTree.parse(working.data.steps) : undefined;
  const diff = saved && current ? diffLines(stepLines(saved), stepLines(current)) : [];
  return (
    <Dialog title={`Revision: ${revision.data?.data.revision.message ?? '…'}`} onClose={props.onClose}>
      {revision.error ? <ErrorMessage error={revision.error} title="Could not read the revision" /> : null}
      {saved ? (
        <>
          <h3>Its steps (read-only)</h3>
          <StepsTree
            steps={fromWire(saved)}
            selectedKey={undefined}
            invalidKeys={new Set()}
            onSelect={() => undefined}
            onKeyMove={() => undefined}
            onDrop={() => undefined}
            readOnly
          />
          <h3>Changes since (working state)</h3>
          <ul className="diff" aria-label="Differences from the working state">
            {diff.map((line, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines may repeat; their order is their identity
              <li key={index} className={`diff-${line.kind}`}>
                {line.kind === 'removed' ? '− ' : line.kind === 'added' ? '+ ' : '  '}
                <span className="visually-hidden">{line.kind === 'same' ? '' : `${line.kind}: `}</span>
                {line.text}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p role="status">Loading revision…</p>
      )}
      {restore.error ? <ErrorMessage error={restore.error} title="Not restored" /> : null}
      <div className="dialog-buttons">
        <button
          type="button"
          disabled={props.dirty || !saved || restore.isPending}
          onClick={() => restore.mutate()}
        >
          Restore this revision
        </button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
