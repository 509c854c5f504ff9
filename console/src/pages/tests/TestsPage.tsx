import { testStatus } from '@stepdeck/contract';
import { keepPreviousData, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { authoringApi } from '../../api/authoring.ts';
import { ApiError } from '../../api/client.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { ciSetupPath, useProjectScope } from '../../lib/scope.ts';
import { ancestorIds, loadedRows, type TestItem } from '../../lib/test-tree.ts';
import {
  childrenQueryOf,
  filterNames,
  isFiltered,
  sortNames,
  testsQueryKey,
  testsQueryOf,
  treeStaleTime,
  wholeTreeQuery,
} from '../../lib/tree-query.ts';
import { CreateBranchDialog } from './BranchDialog.tsx';
import { BulkBar } from './BulkBar.tsx';
import { loadDescendants } from './descendants.ts';
import { MoveDialog, moveAll } from './MoveDialog.tsx';
import { CreateTestDialog, DeleteTestsDialog, RenameTestDialog } from './TestDialogs.tsx';
import { TestsTable } from './TestsTable.tsx';
import { ExportDialog, ImportDialog } from './TransferDialogs.tsx';
import './tests.css';

type OpenDialog =
  | { kind: 'create'; directory: boolean }
  | { kind: 'rename'; test: TestItem }
  | { kind: 'delete'; tests: TestItem[] }
  | { kind: 'branch' }
  | { kind: 'move'; tests: TestItem[] }
  | { kind: 'export' }
  | { kind: 'import' };

/** Where the expanded directories of a project's branch are kept across visits in the tab. */
const expandedStorageKey = (projectId: string, branchId = '') =>
  `stepdeck.tests.expanded ${projectId} ${branchId}`;

function readExpanded(key: string): ReadonlySet<string> {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(key) ?? '[]');
    return new Set(Array.isArray(stored) ? stored.filter((id) => typeof id === 'string') : []);
  } catch {
    return new Set();
  }
}

export function TestsPage() {
  const scope = useProjectScope();
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [dialog, setDialog] = useState<OpenDialog>();
  const [notice, setNotice] = useState('');
  const queryClient = useQueryClient();
  const query = testsQueryOf(search);
  const filtered = isFiltered(search);
  // The tree loads on demand: the top level first, a directory's children when it is expanded.
  const storageKey = expandedStorageKey(scope.projectId, scope.branchId);
  const [expanded, setExpanded] = useState(() => readExpanded(storageKey));
  useEffect(() => {
    sessionStorage.setItem(storageKey, JSON.stringify([...expanded]));
  }, [storageKey, expanded]);
  const tests = useQuery({
    queryKey: testsQueryKey(scope, query),
    queryFn: () => authoringApi.tests(scope, query),
    placeholderData: keepPreviousData,
    staleTime: treeStaleTime,
  });
  // The expanded directories on screen (each one's parent is expanded and listed), read from
  // the cache: one hidden under a folded directory, or gone, is not asked for.
  const opened: string[] = [];
  const openFrom = (list: readonly TestItem[]) => {
    for (const test of list) {
      if (!test.directory || !expanded.has(test.id) || opened.includes(test.id)) continue;
      opened.push(test.id);
      const listedBelow = queryClient.getQueryData<{ children: TestItem[] }>(
        testsQueryKey(scope, childrenQueryOf(search, test.id)),
      );
      if (listedBelow) openFrom(listedBelow.children);
    }
  };
  if (!filtered) openFrom(tests.data?.children ?? []);
  const childLists = useQueries({
    queries: opened.map((directoryId) => {
      const childrenQuery = childrenQueryOf(search, directoryId);
      return {
        queryKey: testsQueryKey(scope, childrenQuery),
        queryFn: () => authoringApi.tests(scope, childrenQuery),
      };
    }),
  });
  // The whole tree, flat, only where it is needed: a filtered list's paths and the dialogs that
  // pick a directory (create, move, export). The tree itself never waits for it.
  const needsWholeTree =
    filtered || dialog?.kind === 'create' || dialog?.kind === 'move' || dialog?.kind === 'export';
  const all = useQuery({
    queryKey: testsQueryKey(scope, wholeTreeQuery),
    queryFn: () => authoringApi.tests(scope, wholeTreeQuery),
    enabled: needsWholeTree,
  });
  const deletingDirectories =
    dialog?.kind === 'delete' ? dialog.tests.filter((test) => test.directory).map((test) => test.id) : [];
  const descendants = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId, 'descendants', deletingDirectories],
    queryFn: () => loadDescendants(scope, deletingDirectories),
    enabled: deletingDirectories.length > 0,
  });
  const tags = useQuery({ queryKey: ['tags'], queryFn: authoringApi.tags, staleTime: 60_000 });
  const listed = tests.data?.children ?? [];
  const childrenOf = new Map<string, TestItem[]>();
  // Directories whose children could not be listed: their row says so instead of "loading…".
  const unlisted = new Set<string>();
  opened.forEach((directoryId, index) => {
    const children = childLists[index]?.data?.children;
    if (children) childrenOf.set(directoryId, children);
    else if (childLists[index]?.isError) unlisted.add(directoryId);
  });
  const rows = filtered
    ? listed.map((test) => ({ test, depth: 0 }))
    : loadedRows(listed, childrenOf, expanded);
  // Every test seen so far (rows, expanded directories, the whole tree when loaded): the
  // selection outlives a directory folding, and paths are named from it.
  const [known] = useState(() => new Map<string, TestItem>());
  for (const list of [all.data?.children ?? [], listed, ...childrenOf.values()])
    for (const test of list) known.set(test.id, test);
  const byId: ReadonlyMap<string, TestItem> = known;
  const directories = (all.data?.children ?? []).filter((test) => test.directory);
  const selection = [...selected].map((id) => byId.get(id)).filter((test): test is TestItem => Boolean(test));
  // A directory deleted or moved away (here or elsewhere) answers 404 until its parent's list,
  // refreshed by the same change, drops it: that is not worth an error.
  const childrenError = childLists.find(
    (list) => list.error && !(list.error instanceof ApiError && list.error.status === 404),
  )?.error;
  const fold = (id: string) => {
    const next = new Set(expanded);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setExpanded(next);
  };
  /** Shows a directory's insides: it and every directory above it are expanded. */
  const reveal = (directoryId: string | null) => {
    setExpanded(new Set([...expanded, ...ancestorIds(byId, directoryId)]));
  };

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    const branch = search.get('branch');
    if (branch) next.set('branch', branch);
    for (const name of [...filterNames, ...sortNames]) {
      const value = String(form.get(name) ?? '').trim();
      if (value && !(name === 'type' && value === 'all')) next.set(name, value);
    }
    setSearch(next);
  };
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  const deleting = dialog?.kind === 'delete' ? dialog.tests : [];
  const chosenIds = new Set(deleting.map((test) => test.id));
  const doomedBelow =
    deletingDirectories.length === 0 ? [] : descendants.data?.filter((test) => !chosenIds.has(test.id));
  const topDirectories = listed.filter((test) => test.directory).length;
  const topTests = listed.length - topDirectories;
  return (
    <section aria-labelledby="tests-heading">
      <h1 id="tests-heading">Tests</h1>
      <form className="filters" onSubmit={applyFilters} aria-label="Filter tests" key={search.toString()}>
        <div className="field">
          <label htmlFor="tests-name">Name</label>
          <input id="tests-name" name="name" type="search" defaultValue={search.get('name') ?? ''} />
        </div>
        <div className="field">
          <label htmlFor="tests-status">Status</label>
          <select id="tests-status" name="status" defaultValue={search.get('status') ?? ''}>
            <option value="">any</option>
            {testStatus.options.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="tests-tag">Tag</label>
          <select id="tests-tag" name="tagIds" defaultValue={search.get('tagIds') ?? ''}>
            <option value="">any</option>
            {(tags.data?.data ?? []).map((tag) => (
              <option key={tag.id} value={tag.id}>
                {tag.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="tests-type">Type</label>
          <select id="tests-type" name="type" defaultValue={search.get('type') ?? 'all'}>
            <option value="all">any</option>
            <option value="ui">ui</option>
            <option value="api">api</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="tests-sort">Sort by</label>
          <select id="tests-sort" name="sortBy" defaultValue={search.get('sortBy') ?? ''}>
            <option value="">created</option>
            <option value="name">name</option>
            <option value="status">status</option>
            <option value="updatedAt">updated</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="tests-order">Order</label>
          <select id="tests-order" name="sortOrder" defaultValue={search.get('sortOrder') ?? 'asc'}>
            <option value="asc">ascending</option>
            <option value="desc">descending</option>
          </select>
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <div className="toolbar">
        <button type="button" onClick={() => setDialog({ kind: 'create', directory: false })}>
          New test
        </button>
        <button type="button" onClick={() => setDialog({ kind: 'create', directory: true })}>
          New directory
        </button>
        <button type="button" onClick={() => setDialog({ kind: 'branch' })}>
          New branch
        </button>
        <button type="button" onClick={() => setDialog({ kind: 'export' })}>
          Export…
        </button>
        <button type="button" onClick={() => setDialog({ kind: 'import' })}>
          Import…
        </button>
        <Link to={ciSetupPath(scope)}>CI setup</Link>
      </div>
      <BulkBar
        scope={scope}
        selection={selection}
        tags={tags.data?.data ?? []}
        onDone={setNotice}
        onDelete={() => setDialog({ kind: 'delete', tests: selection })}
        onMove={() => setDialog({ kind: 'move', tests: selection })}
        onClear={() => setSelected(new Set())}
      />
      <p role="status" className="notice">
        {notice}
      </p>
      {tests.error ? <ErrorMessage error={tests.error} title="Could not list tests" /> : null}
      {childrenError ? (
        <ErrorMessage error={childrenError} title="Could not list a directory's tests" />
      ) : null}
      {tests.data ? (
        <TestsTable
          scope={scope}
          rows={rows}
          flat={filtered}
          expanded={expanded}
          onFold={fold}
          unlisted={unlisted}
          byId={byId}
          caption={
            filtered
              ? `${listed.length} matching`
              : `${topTests} ${topTests === 1 ? 'test' : 'tests'}, ${topDirectories} ${topDirectories === 1 ? 'directory' : 'directories'} at the top level`
          }
          selected={selected}
          onToggle={toggle}
          onRename={(test) => setDialog({ kind: 'rename', test })}
          onDelete={(test) => setDialog({ kind: 'delete', tests: [test] })}
          onMove={(test) => setDialog({ kind: 'move', tests: [test] })}
          onDropInto={(testId, directoryId) => {
            const test = byId.get(testId);
            // The target is on screen, so every directory above it is loaded: a directory dropped
            // onto itself or something inside it is refused here (and by the service).
            if (!test || ancestorIds(byId, directoryId).includes(testId)) return;
            moveAll(scope, [test], directoryId).then(
              () => {
                void queryClient.invalidateQueries({ queryKey: ['tests'] });
                setNotice(`Moved ${test.name} to ${byId.get(directoryId)?.name ?? 'a directory'}`);
              },
              (error: Error) => setNotice(`Not moved: ${error.message}`),
            );
          }}
          onNotice={setNotice}
        />
      ) : tests.isPending ? (
        <p role="status">Loading tests…</p>
      ) : null}
      {dialog?.kind === 'create' ? (
        <CreateTestDialog
          scope={scope}
          directory={dialog.directory}
          directories={directories}
          directoriesLoading={all.isPending}
          onCreated={reveal}
          onOpen={(testId, parentTestId) => {
            // Back on the tree (the browser's Back), the new test shows inside its directory.
            const shown = [...expanded, ...ancestorIds(byId, parentTestId)];
            sessionStorage.setItem(storageKey, JSON.stringify(shown));
            navigate(`/projects/${scope.projectId}/tests/${testId}${scope.branchQuery}`);
          }}
          onClose={() => setDialog(undefined)}
        />
      ) : null}
      {dialog?.kind === 'branch' ? (
        <CreateBranchDialog
          projectId={scope.projectId}
          sourceBranchId={scope.branchId}
          onClose={() => setDialog(undefined)}
        />
      ) : null}
      {dialog?.kind === 'rename' ? (
        <RenameTestDialog scope={scope} test={dialog.test} onClose={() => setDialog(undefined)} />
      ) : null}
      {dialog?.kind === 'move' ? (
        <MoveDialog
          scope={scope}
          tests={dialog.tests}
          everything={all.data?.children}
          onClose={() => setDialog(undefined)}
          onMoved={setNotice}
        />
      ) : null}
      {dialog?.kind === 'export' ? (
        <ExportDialog
          scope={scope}
          selection={selection}
          directories={directories}
          anyDirectory={directories.length > 0 || topDirectories > 0}
          tags={tags.data?.data ?? []}
          onClose={() => setDialog(undefined)}
          onDone={setNotice}
        />
      ) : null}
      {dialog?.kind === 'import' ? <ImportDialog scope={scope} onClose={() => setDialog(undefined)} /> : null}
      {dialog?.kind === 'delete' ? (
        <DeleteTestsDialog
          scope={scope}
          tests={dialog.tests}
          descendants={doomedBelow}
          descendantsError={descendants.error}
          onClose={() => setDialog(undefined)}
          onDeleted={() => {
            const next = new Set(selected);
            const open = new Set(expanded);
            for (const test of [...dialog.tests, ...(doomedBelow ?? [])]) {
              next.delete(test.id);
              open.delete(test.id);
            }
            setSelected(next);
            setExpanded(open);
            setNotice(`Deleted ${dialog.tests.map((test) => test.name).join(', ')}`);
          }}
        />
      ) : null}
    </section>
  );
}
