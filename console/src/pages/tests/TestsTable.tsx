import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { type DragEvent, useLayoutEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { api } from '../../api/endpoints.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { ciSetupPath } from '../../lib/scope.ts';
import { pathOf, type TestItem, type TreeRow } from '../../lib/test-tree.ts';

/** The drag payload of a row (a test id), so drops of anything else are ignored. */
const dragType = 'application/x-stepdeck-test';

/**
 * Past this many rows only those near the viewport are in the DOM (10000 tests must render in
 * 500 ms); below it every row is, so the browser's find-in-page sees them all.
 */
const virtualizeAbove = 300;
/** A row's height before it is measured (one line of text and buttons). */
const estimatedRowHeight = 41;

/**
 * The tests as a table: a tree (indented; a directory's children are listed when it is expanded)
 * or, when filtered, flat with paths.
 */
export function TestsTable(props: {
  scope: ProjectScope & { branchQuery: string };
  rows: TreeRow[];
  flat: boolean;
  expanded: ReadonlySet<string>;
  onFold(id: string): void;
  /** Expanded directories whose children could not be listed (the error is shown above). */
  unlisted: ReadonlySet<string>;
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
  const [dropTarget, setDropTarget] = useState<string>();
  const { rows, expanded } = props;
  const virtual = rows.length > virtualizeAbove;
  const body = useRef<HTMLTableSectionElement>(null);
  const [bodyTop, setBodyTop] = useState(0);
  useLayoutEffect(() => {
    if (virtual && body.current) setBodyTop(body.current.getBoundingClientRect().top + window.scrollY);
  }, [virtual]);
  const virtualizer = useWindowVirtualizer({
    count: virtual ? rows.length : 0,
    estimateSize: () => estimatedRowHeight,
    overscan: 15,
    scrollMargin: bodyTop,
  });
  const items = virtual ? virtualizer.getVirtualItems() : undefined;
  const shown = items
    ? items.flatMap((item) => {
        const row = rows[item.index];
        return row ? [{ ...row, index: item.index }] : [];
      })
    : rows.map((row, index) => ({ ...row, index }));
  const first = items?.[0];
  const last = items?.at(-1);
  const spaceAbove = first ? first.start - bodyTop : 0;
  const spaceBelow = last ? virtualizer.getTotalSize() - (last.end - bodyTop) : 0;
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
  return (
    // Virtualized, the table tells assistive technology how many rows it has in all (+ the header).
    <table className="tests" aria-rowcount={virtual ? rows.length + 1 : undefined}>
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
      <tbody ref={body}>
        {spaceAbove > 0 ? (
          <tr className="virtual-space">
            <td colSpan={7} style={{ height: spaceAbove }} />
          </tr>
        ) : null}
        {shown.map(({ test, depth, loading, index }) => (
          <tr
            key={test.id}
            data-index={index}
            aria-rowindex={virtual ? index + 2 : undefined}
            ref={virtual ? virtualizer.measureElement : undefined}
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
                      aria-expanded={expanded.has(test.id)}
                      aria-label={`${expanded.has(test.id) ? 'Collapse' : 'Expand'} ${test.name}`}
                      onClick={() => props.onFold(test.id)}
                    >
                      {expanded.has(test.id) ? '▾' : '▸'}
                    </button>
                  )}
                  <span className="directory-name">{test.name}/</span>{' '}
                  <span className="muted">({test.childrenCount})</span>
                  {loading ? (
                    <span className="muted">{props.unlisted.has(test.id) ? ' not listed' : ' loading…'}</span>
                  ) : null}
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
              {/* A directory has no page of its own; a test's CI setup is linked from its editor. */}
              {test.directory ? (
                <Link to={ciSetupPath(scope, test.id)} aria-label={`CI setup for ${test.name}`}>
                  CI
                </Link>
              ) : null}
            </td>
          </tr>
        ))}
        {spaceBelow > 0 ? (
          <tr className="virtual-space">
            <td colSpan={7} style={{ height: spaceBelow }} />
          </tr>
        ) : null}
        {rows.length === 0 ? (
          <tr>
            <td colSpan={7} className="muted">
              {props.flat
                ? 'No test matches these filters.'
                : 'No tests here yet: create one with New test or New directory, or import a ZIP.'}
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}
