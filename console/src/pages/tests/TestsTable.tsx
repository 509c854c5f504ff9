import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { api } from '../../api/endpoints.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { pathOf, type TestItem, visibleRows } from '../../lib/test-tree.ts';

/** The drag payload of a row (a test id), so drops of anything else are ignored. */
const dragType = 'application/x-stepdeck-test';

/** The tests as a table: a tree (indented, directories fold) or, when filtered, flat with paths. */
export function TestsTable(props: {
  scope: ProjectScope & { branchQuery: string };
  tests: TestItem[];
  flat: boolean;
  byId: ReadonlyMap<string, TestItem>;
  caption: string;
  selected: ReadonlySet<string>;
  onToggle(id: string, on: boolean): void;
  onRename(test: TestItem): void;
  onDelete(test: TestItem): void;
  onMove(test: TestItem): void;
  /** A row dragged onto a directory's row (the tree only). */
  onDropInto(testId: string, directoryId: string): void;
  onNotice(message: string): void;
}) {
  const { scope } = props;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [dropTarget, setDropTarget] = useState<string>();
  const rows = props.flat
    ? props.tests.map((test) => ({ test, depth: 0 }))
    : visibleRows(props.tests, collapsed);
  const duplicate = useMutation({
    mutationFn: (test: TestItem) => authoringApi.duplicate(scope, test.id),
    onSuccess: async (result) => {
      await queryClient.invalidateQueries({ queryKey: ['tests'] });
      props.onNotice(`Duplicated as ${result.data.name}`);
    },
    onError: (error) => props.onNotice(`Could not duplicate: ${error.message}`),
  });
  const run = useMutation({
    mutationFn: (test: TestItem) => api.runTest(scope, test.id, undefined),
    onSuccess: (result) =>
      void navigate(`/projects/${scope.projectId}/runs/${result.data.runId}${scope.branchQuery}`),
    onError: (error) => props.onNotice(`Could not run: ${error.message}`),
  });
  const fold = (id: string) => {
    const next = new Set(collapsed);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setCollapsed(next);
  };
  return (
    <table className="tests">
      <caption className="muted">{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">Selected</span>
          </th>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Type</th>
          <th scope="col">Tags</th>
          <th scope="col">Steps</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ test, depth }) => (
          <tr
            key={test.id}
            data-testid={`test-row-${test.id}`}
            className={dropTarget === test.id ? 'drop-target' : undefined}
            draggable={!props.flat}
            onDragStart={(event) => event.dataTransfer.setData(dragType, test.id)}
            {...(test.directory && !props.flat
              ? {
                  onDragOver: (event: DragEvent) => {
                    if (!event.dataTransfer.types.includes(dragType)) return;
                    event.preventDefault();
                    setDropTarget(test.id);
                  },
                  onDragLeave: () => setDropTarget(undefined),
                  onDrop: (event: DragEvent) => {
                    event.preventDefault();
                    setDropTarget(undefined);
                    const dragged = event.dataTransfer.getData(dragType);
                    if (dragged) props.onDropInto(dragged, test.id);
                  },
                }
              : {})}
          >
            <td>
              <input
                type="checkbox"
                aria-label={`Select ${test.name}`}
                checked={props.selected.has(test.id)}
                onChange={(event) => props.onToggle(test.id, event.target.checked)}
              />
            </td>
            <th scope="row" style={{ paddingLeft: `${0.5 + depth * 1.5}rem` }}>
              {test.directory ? (
                <>
                  {props.flat ? null : (
                    <button
                      type="button"
                      className="fold"
                      aria-expanded={!collapsed.has(test.id)}
                      aria-label={`${collapsed.has(test.id) ? 'Expand' : 'Collapse'} ${test.name}`}
                      onClick={() => fold(test.id)}
                    >
                      {collapsed.has(test.id) ? '▸' : '▾'}
                    </button>
                  )}
                  <span className="directory-name">{test.name}/</span>{' '}
                  <span className="muted">({test.childrenCount})</span>
                </>
              ) : (
                <Link to={`/projects/${scope.projectId}/tests/${test.id}${scope.branchQuery}`}>
                  {test.name}
                </Link>
              )}
              {props.flat && test.parentTestId ? (
                <span className="muted"> in {pathOf(props.byId, test) || '…'}</span>
              ) : null}
            </th>
            <td>
              <StatusBadge status={test.status} />
            </td>
            <td>{test.directory ? '' : String(test.metadata.type ?? 'ui')}</td>
            <td>{test.tags.map((tag) => tag.name).join(', ')}</td>
            <td>{test.directory ? '' : test.stepsCount}</td>
            <td className="row-actions">
              <button type="button" aria-label={`Run ${test.name}`} onClick={() => run.mutate(test)}>
                Run
              </button>
              <button type="button" aria-label={`Rename ${test.name}`} onClick={() => props.onRename(test)}>
                Rename
              </button>
              <button type="button" aria-label={`Move ${test.name}`} onClick={() => props.onMove(test)}>
                Move
              </button>
              <button
                type="button"
                aria-label={`Duplicate ${test.name}`}
                onClick={() => duplicate.mutate(test)}
              >
                Duplicate
              </button>
              <button type="button" aria-label={`Delete ${test.name}`} onClick={() => props.onDelete(test)}>
                Delete
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
