import { type StepTreeItem, stepTree } from '@stepdeck/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import { ApiError, type ProjectScope } from '../../api/client.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { actionErrors, emptyAction } from '../../lib/action-fields.ts';
import {
  applyMove,
  type EditorStep,
  findStep,
  fromWire,
  insertStep,
  moveBefore,
  newKey,
  removeStep,
  type StepMove,
  toChildrenWire,
  updateStep,
} from '../../lib/step-tree-edit.ts';
import { Palette } from './Palette.tsx';
import { ChosenStepFiles } from './StepFiles.tsx';
import { StepForm } from './StepForm.tsx';
import { StepsTree } from './StepsTree.tsx';
import { StepToolbar } from './StepToolbar.tsx';

/** What the editor that opened the dialog tells it: its test, whether it has unsaved changes, and how to reload it. */
export interface SharedEditing {
  testId?: string;
  editorDirty: boolean;
  onSaved(): void;
}

/**
 * The node of a test's own tree that `matches` (a shared group's node, in a test using it): the
 * API replaces a shared group's children through a node (`PUT /v1/steps/:revisionStepId/children`),
 * and the test's tree holds the children whole (nested groups and conditions included). Only the
 * test's own nodes are searched: a node inside another shared group is a link, not a revision step.
 */
function findNode(
  steps: readonly StepTreeItem[],
  matches: (step: StepTreeItem) => boolean,
): StepTreeItem | undefined {
  for (const step of steps) {
    if (matches(step)) return step;
    if (!step.shared) {
      const found = findNode(step.children ?? [], matches);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The shared step's node in the holding test: by its canonical id, or (`nodeId`, right after a
 * save) by the node the save went through, which keeps its id when copy-on-write repoints it to
 * this branch's new copy.
 */
async function loadHolder(scope: ProjectScope, holderId: string, sharedId: string, nodeId?: string) {
  const detail = await authoringApi.test(scope, holderId);
  const steps = stepTree.parse(detail.steps);
  const node = findNode(steps, (step) =>
    nodeId ? step.id === nodeId : Boolean(step.shared) && step.stepId === sharedId,
  );
  if (!node) throw new ApiError(404, 'The test no longer uses this shared step: reopen the dialog');
  return { nodeId: node.id, stepId: node.stepId, children: node.children ?? [] };
}

/** The children as the service has them, for telling whether someone changed them meanwhile. */
const fingerprint = (children: readonly StepTreeItem[]) =>
  JSON.stringify(toChildrenWire(fromWire(children)).map((child) => ({ ...child })));

/**
 * Editing a shared group's steps with the test editor's own parts (tree, palette, step form,
 * files). Saving first shows who the change reaches and the copy-on-write rule, then checks that
 * nobody replaced the children since they were loaded (the route has no version of its own: a
 * change meanwhile asks "reload theirs or overwrite with mine", as the editor's 409 does).
 */
export function SharedChildrenEditor(props: {
  scope: ProjectScope;
  step: { id: string; name: string };
  users: Array<{ id: string; name: string }>;
  editing?: SharedEditing | undefined;
  /**
   * Copy-on-write happened: another branch used the step, so this branch's tests now use a new
   * shared step record (`stepId`) holding the saved steps; the other branches keep the old one.
   */
  onCopied(stepId: string): void;
}) {
  const { scope, step, users, editing } = props;
  const queryClient = useQueryClient();
  const headingId = useId();
  // Through the open test when it uses the step, else through any test on this branch using it.
  const holderId = users.find((user) => user.id === editing?.testId)?.id ?? users[0]?.id;
  const holder = useQuery({
    queryKey: ['shared-steps', scope.projectId, scope.branchId, 'holder', step.id, holderId],
    queryFn: () => loadHolder(scope, holderId as string, step.id),
    enabled: holderId !== undefined && !editing?.editorDirty,
    staleTime: 0,
    // After a copy-on-write the step's id changes: the editor stays while the new one is read.
    placeholderData: keepPreviousData,
  });
  const [draft, setDraft] = useState<{ steps: EditorStep[]; baseline: string }>();
  const [selectedKey, setSelectedKey] = useState<string>();
  const [uploads, setUploads] = useState<ReadonlyMap<string, File>>(new Map());
  const [phase, setPhase] = useState<'editing' | 'review' | 'conflict' | 'saving'>('editing');
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState('');
  const storedFiles = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId, 'files', holderId],
    queryFn: () => authoringApi.files(scope, holderId as string),
    enabled: draft !== undefined,
  });

  if (editing?.editorDirty)
    return (
      <p className="muted">
        Save or discard your changes to this test before editing this shared step’s steps: saving them changes
        this test too.
      </p>
    );
  if (holderId === undefined)
    return (
      <p className="muted">
        No test on this branch uses it, so its steps cannot be edited here: the API edits a shared step’s
        steps through a test that uses it. Insert it into a test and save that test first.
      </p>
    );
  if (holder.error) return <ErrorMessage error={holder.error} title="Could not read its steps" />;
  if (!holder.data) return <p role="status">Reading its steps…</p>;
  if (!draft)
    return (
      <button
        type="button"
        onClick={() => {
          setDraft({ steps: fromWire(holder.data.children), baseline: fingerprint(holder.data.children) });
          setSaved('');
        }}
      >
        Edit its steps…
      </button>
    );

  const steps = draft.steps;
  const change = (next: EditorStep[]) => {
    setDraft({ ...draft, steps: next });
    setSaved('');
  };
  const selected = selectedKey ? findStep(steps, selectedKey) : undefined;
  const invalidKeys = new Set<string>();
  const walk = (list: EditorStep[]) => {
    for (const item of list) {
      if (!(item.shared && item.stepId) && Object.keys(actionErrors(item.action)).length > 0)
        invalidKeys.add(item.key);
      walk(item.children);
    }
  };
  walk(steps);
  const move = (key: string, direction: StepMove) => change(applyMove(steps, key, direction));
  const add = (added: EditorStep) => {
    change(insertStep(steps, added, selectedKey));
    setSelectedKey(added.key);
  };

  const replace = async (checkFirst: boolean) => {
    setError(undefined);
    setPhase('saving');
    try {
      // The node id is read afresh: a save of the holding test gives its nodes new ids.
      const current = await loadHolder(scope, holderId, step.id);
      if (checkFirst && fingerprint(current.children) !== draft.baseline) return setPhase('conflict');
      const result = await authoringApi.replaceSharedChildren(scope, current.nodeId, toChildrenWire(steps), [
        ...uploads.values(),
      ]);
      setUploads(new Map());
      setSelectedKey(undefined);
      await queryClient.invalidateQueries({ queryKey: ['tests', scope.projectId] });
      await queryClient.invalidateQueries({ queryKey: ['shared-steps', scope.projectId] });
      const fresh = await loadHolder(scope, holderId, step.id, current.nodeId);
      setDraft({ steps: fromWire(fresh.children), baseline: fingerprint(fresh.children) });
      const copied = fresh.stepId !== undefined && fresh.stepId !== step.id;
      setSaved(
        `Saved ${result.data.children.length} ${result.data.children.length === 1 ? 'step' : 'steps'} for ${users.length} ${users.length === 1 ? 'test' : 'tests'}` +
          (copied
            ? ': another branch uses it, so this branch now has its own copy; the other branches keep the steps they had (copy-on-write)'
            : ''),
      );
      setPhase('editing');
      if (copied && fresh.stepId) props.onCopied(fresh.stepId);
      editing?.onSaved();
    } catch (caught) {
      setError(caught);
      setPhase('review');
    }
  };
  const reloadTheirs = async () => {
    const fresh = await loadHolder(scope, holderId, step.id);
    setDraft({ steps: fromWire(fresh.children), baseline: fingerprint(fresh.children) });
    setUploads(new Map());
    setSelectedKey(undefined);
    setPhase('editing');
  };

  return (
    <section className="shared-children" aria-labelledby={headingId}>
      <h3 id={headingId}>Its steps</h3>
      <div className="shared-children-columns">
        <div>
          {steps.length === 0 ? <p className="muted">No steps: add one from the palette.</p> : null}
          <StepsTree
            steps={steps}
            selectedKey={selectedKey}
            invalidKeys={invalidKeys}
            onSelect={setSelectedKey}
            onKeyMove={move}
            onDrop={(key, before) => change(moveBefore(steps, key, before))}
          />
          {selected ? (
            <section aria-label={`Shared step’s step: ${selected.name || String(selected.action.name)}`}>
              <StepToolbar
                onMove={(direction) => move(selected.key, direction)}
                onDelete={() => {
                  change(removeStep(steps, selected.key));
                  setSelectedKey(undefined);
                }}
              />
              {selected.shared && selected.stepId ? (
                <p className="muted">A shared step inside this one: manage it from the palette.</p>
              ) : (
                <StepForm
                  key={selected.key}
                  step={selected}
                  serverError={undefined}
                  suggestions={[]}
                  onChange={(partial) => change(updateStep(steps, selected.key, partial))}
                />
              )}
              <ChosenStepFiles
                step={selected}
                storedFiles={storedFiles.data?.data}
                uploads={uploads}
                onUploads={setUploads}
                onStepChange={(partial) => change(updateStep(steps, selected.key, partial))}
              />
            </section>
          ) : null}
        </div>
        <Palette
          scope={scope}
          onAdd={(actionName) =>
            add({
              key: newKey(),
              name: '',
              action: emptyAction(actionName),
              condition: null,
              shared: false,
              children: [],
            })
          }
          onAddShared={(shared) =>
            add({
              key: newKey(),
              stepId: shared.id,
              name: shared.name,
              action: { name: 'group' },
              condition: null,
              shared: true,
              children: [],
            })
          }
        />
      </div>
      <p role="status" className="notice">
        {saved}
      </p>
      {phase === 'editing' ? (
        <button type="button" disabled={invalidKeys.size > 0} onClick={() => setPhase('review')}>
          Review and save its steps…
        </button>
      ) : null}
      {phase === 'review' || phase === 'saving' ? (
        <section className="review" aria-label="Before saving">
          <p>
            <strong>
              Saving replaces the steps of {step.name} in {users.length}{' '}
              {users.length === 1 ? 'test' : 'tests'} on this branch:{' '}
              {users.map((user) => user.name).join(', ')}.
            </strong>
          </p>
          <p className="muted">
            Tests on other branches keep the steps they have: when another branch uses it, the service gives
            this branch its own copy instead of changing theirs (copy-on-write).
          </p>
          {error ? <ErrorMessage error={error} title="Its steps were not saved" /> : null}
          <div className="dialog-buttons">
            <button type="button" disabled={phase === 'saving'} onClick={() => void replace(true)}>
              Replace its steps
            </button>
            <button type="button" onClick={() => setPhase('editing')}>
              Back to editing
            </button>
          </div>
        </section>
      ) : null}
      {phase === 'conflict' ? (
        <div role="alert" className="error-box">
          <strong>Someone changed this shared step’s steps since you opened them.</strong>
          <p>Keep which version?</p>
          <div className="dialog-buttons">
            <button type="button" onClick={() => void reloadTheirs()}>
              Reload their version
            </button>
            <button type="button" onClick={() => void replace(false)}>
              Overwrite with mine
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
