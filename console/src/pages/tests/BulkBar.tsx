import { type consoleTag, testStatus } from '@stepdeck/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { TagPicker } from '../../components/TagPicker.tsx';
import type { TestItem } from '../../lib/test-tree.ts';

/** Actions on the selected tests: status, tags (replacing the set, as the API does), delete, run. */
export function BulkBar(props: {
  scope: ProjectScope & { branchQuery: string };
  selection: TestItem[];
  tags: Array<z.infer<typeof consoleTag>>;
  onDone(message: string): void;
  onDelete(): void;
  onMove(): void;
  onClear(): void;
}) {
  const { scope, selection } = props;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState('active');
  const [tagIds, setTagIds] = useState<string[]>([]);
  const testIds = selection.map((test) => test.id);
  const after = (message: string) => async () => {
    await queryClient.invalidateQueries({ queryKey: ['tests'] });
    props.onDone(message);
  };
  const fail = (error: Error) => props.onDone(`Failed: ${error.message}`);
  const setAllStatus = useMutation({
    mutationFn: () => authoringApi.bulkStatus(scope, { testIds, status: testStatus.parse(status) }),
    onSuccess: after(`Status set to ${status} on ${testIds.length} tests`),
    onError: fail,
  });
  const setAllTags = useMutation({
    mutationFn: () => authoringApi.bulkTags(scope, { testIds, tagIds }),
    onSuccess: after(`Tags replaced on ${testIds.length} tests`),
    onError: fail,
  });
  const runAll = useMutation({
    mutationFn: () => authoringApi.runTests(scope, { testIds }),
    onSuccess: (result) =>
      void navigate(`/projects/${scope.projectId}/runs/${result.data.runId}${scope.branchQuery}`),
    onError: fail,
  });
  if (selection.length === 0) return null;
  return (
    <fieldset className="bulk-bar">
      <legend>
        {selection.length} selected{' '}
        <button type="button" onClick={props.onClear}>
          Clear selection
        </button>
      </legend>
      <div className="field">
        <label htmlFor="bulk-status">New status</label>
        <select id="bulk-status" value={status} onChange={(event) => setStatus(event.target.value)}>
          {testStatus.options.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
        <button type="button" disabled={setAllStatus.isPending} onClick={() => setAllStatus.mutate()}>
          Set status
        </button>
      </div>
      <div className="field">
        <TagPicker legend="Tags" tags={props.tags} chosen={tagIds} onChange={setTagIds} />
        <button type="button" disabled={setAllTags.isPending} onClick={() => setAllTags.mutate()}>
          Replace tags
        </button>
      </div>
      <button type="button" onClick={props.onMove}>
        Move selected
      </button>
      <button type="button" className="danger" onClick={props.onDelete}>
        Delete selected
      </button>
      <button type="button" disabled={runAll.isPending} onClick={() => runAll.mutate()}>
        Run selected
      </button>
    </fieldset>
  );
}
