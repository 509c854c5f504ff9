import { testStatus } from '@stepdeck/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { authoringApi } from '../../api/authoring.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { useProjectScope } from '../../lib/scope.ts';
import { descendantsOf, type TestItem } from '../../lib/test-tree.ts';
import { CreateBranchDialog } from './BranchDialog.tsx';
import { BulkBar } from './BulkBar.tsx';
import { MoveDialog, moveAll } from './MoveDialog.tsx';
import { CreateTestDialog, DeleteTestsDialog, RenameTestDialog } from './TestDialogs.tsx';
import { TestsTable } from './TestsTable.tsx';
import { ExportDialog, ImportDialog } from './TransferDialogs.tsx';
import {
  filterNames,
  sortNames,
  testsQueryKey,
  testsQueryOf,
  treeLimit,
  treeStaleTime,
} from './tree-query.ts';

type OpenDialog =
  | { kind: 'create'; directory: boolean }
  | { kind: 'rename'; test: TestItem }
  | { kind: 'delete'; tests: TestItem[] }
  | { kind: 'branch' }
  | { kind: 'move'; tests: TestItem[] }
  | { kind: 'export' }
  | { kind: 'import' };

export function TestsPage() {
  const scope = useProjectScope();
  const [search, setSearch] = useSearchParams();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [dialog, setDialog] = useState<OpenDialog>();
  const [notice, setNotice] = useState('');
  const queryClient = useQueryClient();
  const query = testsQueryOf(search);
  const filtered = filterNames.some(
    (name) => search.get(name) && !(name === 'type' && search.get(name) === 'all'),
  );
  const tests = useQuery({
    queryKey: testsQueryKey(scope, query),
    queryFn: () => authoringApi.tests(scope, query),
    placeholderData: keepPreviousData,
    staleTime: treeStaleTime,
  });
  // Directory names for the flat list's paths and the create dialog, whatever the filters.
  const all = useQuery({
    queryKey: testsQueryKey(scope, { limit: treeLimit, type: 'all' }),
    queryFn: () => authoringApi.tests(scope, { limit: treeLimit, type: 'all' }),
    enabled: filtered,
  });
  const tags = useQuery({ queryKey: ['tags'], queryFn: authoringApi.tags, staleTime: 60_000 });
  const listed = tests.data?.children ?? [];
  const everything = filtered ? (all.data?.children ?? []) : listed;
  const byId = useMemo(() => new Map(everything.map((test) => [test.id, test])), [everything]);
  const directories = everything.filter((test) => test.directory);
  const selection = [...selected].map((id) => byId.get(id)).filter((test): test is TestItem => Boolean(test));

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
  const doomedBelow = deleting
    .filter((test) => test.directory)
    .flatMap((test) => descendantsOf(everything, test.id))
    .filter((test, index, list) => list.findIndex((other) => other.id === test.id) === index)
    .filter((test) => !deleting.some((chosen) => chosen.id === test.id));
  const testCount = everything.filter((test) => !test.directory).length;
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
      {tests.data ? (
        <TestsTable
          scope={scope}
          tests={listed}
          flat={filtered}
          byId={byId}
          caption={
            filtered
              ? `${listed.length} matching`
              : `${testCount} ${testCount === 1 ? 'test' : 'tests'}, ${directories.length} ${directories.length === 1 ? 'directory' : 'directories'}`
          }
          selected={selected}
          onToggle={toggle}
          onRename={(test) => setDialog({ kind: 'rename', test })}
          onDelete={(test) => setDialog({ kind: 'delete', tests: [test] })}
          onMove={(test) => setDialog({ kind: 'move', tests: [test] })}
          onDropInto={(testId, directoryId) => {
            const test = byId.get(testId);
            const inside = descendantsOf(everything, testId).some((below) => below.id === directoryId);
            if (!test || testId === directoryId || inside) return;
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
          everything={everything}
          onClose={() => setDialog(undefined)}
          onMoved={setNotice}
        />
      ) : null}
      {dialog?.kind === 'export' ? (
        <ExportDialog
          scope={scope}
          selection={selection}
          directories={directories}
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
          onClose={() => setDialog(undefined)}
          onDeleted={() => {
            const next = new Set(selected);
            for (const test of [...dialog.tests, ...doomedBelow]) next.delete(test.id);
            setSelected(next);
            setNotice(`Deleted ${dialog.tests.map((test) => test.name).join(', ')}`);
          }}
        />
      ) : null}
    </section>
  );
}

export default TestsPage;
