import { defaultMaxStepsPerTest, maxStepDepth, testStatus } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useBlocker, useParams } from 'react-router';
import { authoringApi } from '../../api/authoring.ts';
import { ApiError } from '../../api/client.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { NotFoundPage } from '../../components/NotFound.tsx';
import { emptyAction, locateStepError } from '../../lib/action-fields.ts';
import { usePermissions } from '../../lib/permissions.ts';
import { ciSetupPath, runsOfTestPath, useProjectScope } from '../../lib/scope.ts';
import {
  applyMove,
  countSteps,
  type EditorStep,
  findStep,
  insertStep,
  isGroup,
  levelOf,
  moveBefore,
  newKey,
  pathOfStep,
  removeStep,
  type StepMove,
  stepAtPath,
  templateSuggestions,
  toWire,
  treeDepth,
  updateStep,
} from '../../lib/step-tree-edit.ts';
import { DataSetPanel } from './DataSetPanel.tsx';
import { ConflictDialog, LeaveDialog } from './EditorDialogs.tsx';
import { EditorToolbar } from './EditorToolbar.tsx';
import { checkedConfig, type Draft, draftOf, hasErrors } from './editor-draft.ts';
import { LiveBrowserPanel } from './LiveBrowserPanel.tsx';
import { Palette } from './Palette.tsx';
import { RevisionsPanel } from './RevisionsPanel.tsx';
import { RunConfigPanel } from './RunConfigPanel.tsx';
import { RunDialog } from './RunDialog.tsx';
import { SharedStepDialog } from './SharedStepDialog.tsx';
import { SharedStepPanel } from './SharedStepPanel.tsx';
import { ChosenStepFiles } from './StepFiles.tsx';
import { StepForm } from './StepForm.tsx';
import { StepsTree } from './StepsTree.tsx';
import { StepToolbar } from './StepToolbar.tsx';
import { TestDataPanel } from './TestDataPanel.tsx';
import { useLiveSteps } from './use-live-steps.ts';
import './editor.css';

/** One editor per test and branch: switching branch opens that branch's working state afresh. */
export function TestEditorPage() {
  const scope = useProjectScope();
  const { testId = '' } = useParams();
  return <TestEditor key={`${testId}:${scope.branchId ?? ''}`} />;
}

/** A test's steps as an editable tree, saved whole with `editVersion` (a 409 asks what to keep). */
function TestEditor() {
  const scope = useProjectScope();
  const { testId = '' } = useParams();
  const queryClient = useQueryClient();
  const detailKey = ['tests', scope.projectId, scope.branchId, 'detail', testId];
  const detail = useQuery({ queryKey: detailKey, queryFn: () => authoringApi.test(scope, testId) });
  const [draft, setDraft] = useState<Draft>();
  const { can } = usePermissions();
  const [liveOpen, setLiveOpen] = useState(false);
  const [dirty, setDirty] = useState(false);
  const [selectedKey, setSelectedKey] = useState<string>();
  const [serverError, setServerError] = useState<{ key: string; field: string; text: string }>();
  const [conflict, setConflict] = useState(false);
  const [notice, setNotice] = useState('');
  // Files picked for `setInputFiles` steps, sent with the next save (the PUT's `files` field).
  const [uploads, setUploads] = useState<ReadonlyMap<string, File>>(new Map());
  const storedFiles = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId, 'files', testId],
    queryFn: () => authoringApi.files(scope, testId),
  });

  // The working state is taken from the server once per load (and again on "reload").
  useEffect(() => {
    if (!detail.data || draft) return;
    setDraft(draftOf(detail.data));
  }, [detail.data, draft]);

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const change = (steps: EditorStep[]) => {
    setDraft((current) => (current ? { ...current, steps } : current));
    setDirty(true);
  };
  const changeRef = useRef(change);
  changeRef.current = change;
  const save = useMutation({
    mutationFn: async (mode: 'checked' | 'overwrite') => {
      if (!draft) return;
      let editVersion = draft.editVersion;
      if (mode === 'overwrite') {
        // "Overwrite with mine": the server's current version, so the save goes through on purpose.
        const latest = await authoringApi.test(scope, testId);
        editVersion = latest.test.editVersion;
      }
      const testData = {
        steps: toWire(draft.steps) as Array<Record<string, unknown>>,
        status: testStatus.parse(draft.status),
        config: checkedConfig(draft.config),
        vars: draft.vars,
        parameters: draft.parameters,
        dataSet: draft.dataSet,
        tags: draft.tagIds,
        editVersion,
      };
      if (uploads.size > 0)
        await authoringApi.updateTestWithFiles(scope, testId, testData, [...uploads.values()]);
      else await authoringApi.updateTest(scope, testId, testData);
    },
    onSuccess: async () => {
      setUploads(new Map());
      await storedFiles.refetch();
      setServerError(undefined);
      setConflict(false);
      setDirty(false);
      setNotice('Saved');
      // The saved tree comes back from the server (a group saved as shared is now a reference).
      const path = selectedKey && draft ? pathOfStep(draft.steps, selectedKey) : undefined;
      const fresh = await queryClient.fetchQuery({
        queryKey: detailKey,
        queryFn: () => authoringApi.test(scope, testId),
      });
      const freshDraft = draftOf(fresh);
      const freshSteps = freshDraft.steps;
      setDraft(freshDraft);
      setSelectedKey(path ? stepAtPath(freshSteps, path)?.key : undefined);
      await queryClient.invalidateQueries({ queryKey: ['tests', scope.projectId] });
      await queryClient.invalidateQueries({ queryKey: ['shared-steps', scope.projectId] });
    },
    onError: (error) => {
      setNotice('');
      if (error instanceof ApiError && error.status === 409) return setConflict(true);
      const located = locateStepError(error.message);
      const step = located && draft ? stepAtPath(draft.steps, located.path) : undefined;
      if (located && step) {
        setServerError({ key: step.key, field: located.field, text: located.text });
        setSelectedKey(step.key);
      }
    },
  });
  const reload = async () => {
    const fresh = await queryClient.fetchQuery({
      queryKey: detailKey,
      queryFn: () => authoringApi.test(scope, testId),
    });
    setConflict(false);
    setDirty(false);
    setUploads(new Map());
    setSelectedKey(undefined);
    setDraft(draftOf(fresh));
  };
  // A shared step's steps saved from its dialog change this (unsaved-free) test: take the server's
  // tree again, keeping the chosen step (and so the open dialog) in place.
  const reloadAfterSharedSave = async () => {
    const path = selectedKey && draft ? pathOfStep(draft.steps, selectedKey) : undefined;
    const fresh = await queryClient.fetchQuery({
      queryKey: detailKey,
      queryFn: () => authoringApi.test(scope, testId),
    });
    const freshDraft = draftOf(fresh);
    setDraft(freshDraft);
    setSelectedKey(path ? stepAtPath(freshDraft.steps, path)?.key : undefined);
  };
  const [running, setRunning] = useState(false);
  const [dataValid, setDataValid] = useState(true);
  const [dataSetValid, setDataSetValid] = useState(true);

  const liveSteps = useLiveSteps({ draft, selectedKey, setSelectedKey, setDraft, setDirty });
  const steps = draft?.steps ?? [];
  const selected = selectedKey ? findStep(steps, selectedKey) : undefined;
  const previousInvalid = useRef<ReadonlySet<string>>(new Set());
  const invalidKeys = useMemo(() => {
    const out = new Set<string>();
    const walk = (list: EditorStep[]) => {
      for (const step of list) {
        if (!(step.shared && step.stepId) && hasErrors(step.action)) out.add(step.key);
        walk(step.children);
      }
    };
    walk(steps);
    if (serverError) out.add(serverError.key);
    // The same set as before keeps its identity, so the memoized steps tree skips unchanged steps.
    const before = previousInvalid.current;
    if (out.size === before.size && [...out].every((key) => before.has(key))) return before;
    previousInvalid.current = out;
    return out;
  }, [steps, serverError]);
  const suggestions = [
    ...templateSuggestions(draft?.vars ?? null, draft?.parameters ?? null),
    ...(draft?.dataSet?.columns ?? []).map((column) => `{{data.${column}}}`),
  ];
  const add = (actionName: string) => {
    const step: EditorStep = {
      key: newKey(),
      name: '',
      action: emptyAction(actionName),
      condition: null,
      shared: false,
      children: [],
    };
    change(insertStep(steps, step, selectedKey));
    setSelectedKey(step.key);
  };
  const keyMove = (key: string, direction: StepMove) => {
    const next = applyMove(steps, key, direction);
    if (next === steps) return;
    if (deeperThanAllowed(next, steps)) return setNotice(tooDeepNotice);
    change(next);
    const moved = findStep(next, key);
    setNotice(
      `Moved ${moved?.name || String(moved?.action.name)} ${direction === 'in' ? 'into the group above' : direction === 'out' ? 'out of its group' : direction}`,
    );
    // Keep the keyboard on the moved step (its button is rendered anew in its new place).
    requestAnimationFrame(() =>
      document.querySelector<HTMLButtonElement>(`[data-step-key="${key}"]`)?.focus(),
    );
  };
  // Stable callbacks for the memoized steps tree, calling the latest closures.
  const latest = useRef({ keyMove, steps });
  latest.current = { keyMove, steps };
  const onKeyMove = useCallback(
    (key: string, direction: StepMove) => latest.current.keyMove(key, direction),
    [],
  );
  const onDropStep = useCallback((key: string, before: string) => {
    const next = moveBefore(latest.current.steps, key, before);
    if (deeperThanAllowed(next, latest.current.steps)) return setNotice(tooDeepNotice);
    changeRef.current(next);
  }, []);
  // A new step goes into the chosen group: none fits in one already at the deepest level.
  const addRefusal =
    selected && isGroup(selected) && !selected.stepId && (levelOf(steps, selected.key) ?? 0) >= maxStepDepth
      ? `${selected.name || 'This group'} is ${maxStepDepth} levels deep, the most groups may nest: a step added now would go inside it. Choose a step outside it to add after that one.`
      : undefined;

  // An unknown id, or one that is not even a UUID (400), is a link to nothing: not found.
  if (detail.error instanceof ApiError && (detail.error.status === 404 || detail.error.status === 400))
    return <NotFoundPage what="Test" />;
  if (detail.error) return <ErrorMessage error={detail.error} title="Could not open the test" />;
  if (!detail.data || !draft) return <p role="status">Loading test…</p>;
  const test = detail.data.test;
  return (
    <section aria-labelledby="editor-heading" className="editor">
      <h1 id="editor-heading">Edit {test.name}</h1>
      <p className="editor-links">
        <Link to={runsOfTestPath(scope, testId)}>Runs of this test</Link>
        <Link to={`/projects/${scope.projectId}/tests/${testId}/history${scope.branchQuery}`}>History</Link>
        <Link to={ciSetupPath(scope, testId)}>CI setup</Link>
      </p>
      <EditorToolbar
        status={draft.status}
        onStatus={(status) => {
          setDraft({ ...draft, status });
          setDirty(true);
        }}
        dirty={dirty}
        canSave={dirty && dataValid && dataSetValid && !save.isPending}
        onSave={() => save.mutate('checked')}
        onRun={() => setRunning(true)}
      />
      {can('liveBrowser') && !liveOpen ? (
        <button type="button" onClick={() => setLiveOpen(true)}>
          Open live browser
        </button>
      ) : null}
      {liveOpen ? (
        <LiveBrowserPanel
          projectId={scope.projectId}
          testId={testId}
          initialUrl={
            String((draft.config.use as { baseURL?: unknown } | undefined)?.baseURL ?? '') || 'about:blank'
          }
          onClose={() => setLiveOpen(false)}
          {...liveSteps}
        />
      ) : null}
      <RunConfigPanel
        config={draft.config}
        onChange={(config) => {
          setDraft({ ...draft, config });
          setDirty(true);
        }}
      />
      <TestDataPanel
        data={draft}
        onValidity={(valid) => setDataValid(valid)}
        onChange={(data) => {
          setDraft({ ...draft, ...data });
          setDirty(true);
        }}
      />
      <DataSetPanel
        value={draft.dataSet}
        onValidity={setDataSetValid}
        onChange={(dataSet) => {
          setDraft({ ...draft, dataSet });
          setDirty(true);
        }}
      />
      <p role="status" className="notice">
        {notice}
      </p>
      {save.error && !(save.error instanceof ApiError && save.error.status === 409) ? (
        <ErrorMessage error={save.error} title="Could not save" />
      ) : null}
      <div className="editor-columns">
        <div>
          <h2>Steps</h2>
          {steps.length === 0 ? <p className="muted">No steps yet: add one below.</p> : null}
          {countSteps(steps) > defaultMaxStepsPerTest ? (
            <p className="muted">{tooManyStepsNotice(countSteps(steps))}</p>
          ) : null}
          <StepsTree
            steps={steps}
            selectedKey={selectedKey}
            invalidKeys={invalidKeys}
            onSelect={setSelectedKey}
            onKeyMove={onKeyMove}
            onDrop={onDropStep}
          />
          <Palette
            scope={scope}
            refusal={addRefusal}
            onAdd={add}
            manageDialog={(managed) => (
              <SharedStepDialog
                scope={scope}
                {...managed}
                editing={{ testId, editorDirty: dirty, onSaved: () => void reloadAfterSharedSave() }}
              />
            )}
            onAddShared={(shared) => {
              const step: EditorStep = {
                key: newKey(),
                stepId: shared.id,
                name: shared.name,
                action: { name: 'group' },
                condition: null,
                shared: true,
                children: [],
              };
              change(insertStep(steps, step, selectedKey));
              setSelectedKey(step.key);
            }}
          />
        </div>
        <div>
          {selected ? (
            <section aria-labelledby="step-heading" className="step-panel">
              <h2 id="step-heading">Step: {selected.name || String(selected.action.name)}</h2>
              <StepToolbar
                onMove={(direction) => keyMove(selected.key, direction)}
                onDelete={() => {
                  change(removeStep(steps, selected.key));
                  setSelectedKey(undefined);
                }}
              />
              {selected.shared && selected.stepId ? (
                <SharedStepPanel
                  scope={scope}
                  stepId={selected.stepId}
                  testId={testId}
                  editorDirty={dirty}
                  onSharedSaved={() => void reloadAfterSharedSave()}
                />
              ) : (
                <StepForm
                  key={selected.key}
                  step={selected}
                  serverError={serverError?.key === selected.key ? serverError : undefined}
                  suggestions={suggestions}
                  onChange={(partial) => {
                    if (serverError?.key === selected.key) setServerError(undefined);
                    change(updateStep(steps, selected.key, partial));
                  }}
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
          ) : (
            <p className="muted">Choose a step to edit it.</p>
          )}
          <RevisionsPanel scope={scope} testId={testId} dirty={dirty} onRestored={() => void reload()} />
        </div>
      </div>
      {running ? <RunDialog scope={scope} testId={testId} onClose={() => setRunning(false)} /> : null}
      {conflict ? (
        <ConflictDialog
          onClose={() => setConflict(false)}
          onReload={() => void reload()}
          onOverwrite={() => save.mutate('overwrite')}
        />
      ) : null}
      {blocker.state === 'blocked' ? (
        <LeaveDialog testName={test.name} onLeave={() => blocker.proceed()} onStay={() => blocker.reset()} />
      ) : null}
    </section>
  );
}

/** The service refuses a tree deeper than `maxStepDepth` (400); a move never makes one deeper. */
const deeperThanAllowed = (next: EditorStep[], before: EditorStep[]) =>
  treeDepth(next) > maxStepDepth && treeDepth(next) > treeDepth(before);
const tooDeepNotice = `Not moved: groups may nest at most ${maxStepDepth} levels deep.`;
/** The service refuses a test past `MAX_STEPS_PER_TEST` (400 naming it; 2000 unless the install sets it). */
const tooManyStepsNotice = (count: number) =>
  `This test has ${count} steps. The service takes at most ${defaultMaxStepsPerTest} per test unless its MAX_STEPS_PER_TEST says otherwise: a save with more is refused.`;
