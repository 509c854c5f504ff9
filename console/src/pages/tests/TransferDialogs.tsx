import type { consoleTag, importResponse } from '@stepdeck/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { z } from 'zod';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import type { TestItem } from '../../lib/test-tree.ts';

type Source = 'selection' | 'directory' | 'tag';

/** Export of the selection, a directory (with its descendants) or a tag, as JSON or Playwright (`pw`). */
export function ExportDialog(props: {
  scope: ProjectScope;
  selection: TestItem[];
  /** Every directory, once the whole tree has loaded (empty until then). */
  directories: TestItem[];
  /** Whether the project has a directory at all (known from the tree's top level at once). */
  anyDirectory: boolean;
  tags: Array<z.infer<typeof consoleTag>>;
  onClose(): void;
  onDone(message: string): void;
}) {
  const [source, setSource] = useState<Source>(
    props.selection.length > 0 ? 'selection' : props.anyDirectory ? 'directory' : 'tag',
  );
  const download = useMutation({
    mutationFn: (form: FormData) => {
      const format = form.get('format') === 'pw' ? 'pw' : 'json';
      const chosen = String(form.get(source) ?? '');
      const selection =
        source === 'selection'
          ? { testIds: props.selection.map((test) => test.id) }
          : source === 'directory'
            ? { directoryId: chosen }
            : { tagIds: [chosen] };
      return authoringApi.exportTests(props.scope, { ...selection, format });
    },
    onSuccess: (filename) => {
      props.onDone(`Exported ${filename}`);
      props.onClose();
    },
  });
  const options: Array<[Source, string, boolean]> = [
    ['selection', `The selection (${props.selection.length})`, props.selection.length > 0],
    ['directory', 'A directory and everything inside', props.anyDirectory],
    ['tag', 'The tests with a tag', props.tags.length > 0],
  ];
  return (
    <Dialog title="Export tests" onClose={props.onClose}>
      <form
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          download.mutate(new FormData(event.currentTarget));
        }}
      >
        <fieldset>
          <legend>What</legend>
          {options.map(([value, label, enabled]) => (
            <label key={value} className="authoring-choice">
              <input
                type="radio"
                name="source"
                value={value}
                checked={source === value}
                disabled={!enabled}
                onChange={() => setSource(value)}
              />
              {label}
            </label>
          ))}
        </fieldset>
        {source === 'directory' ? (
          <div className="field">
            <label htmlFor="export-directory">Directory</label>
            <select id="export-directory" name="directory" required>
              {props.directories.map((directory) => (
                <option key={directory.id} value={directory.id}>
                  {directory.name}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {source === 'tag' ? (
          <div className="field">
            <label htmlFor="export-tag">Tag</label>
            <select id="export-tag" name="tag" required>
              {props.tags.map((tag) => (
                <option key={tag.id} value={tag.id}>
                  {tag.name}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <fieldset>
          <legend>Format</legend>
          <label className="authoring-choice">
            <input type="radio" name="format" value="json" defaultChecked />
            JSON (can be imported)
          </label>
          <label className="authoring-choice">
            <input type="radio" name="format" value="pw" />
            Playwright scripts (pw)
          </label>
        </fieldset>
        {download.error ? <ErrorMessage error={download.error} title="Not exported" /> : null}
        <div className="dialog-buttons">
          <button type="submit" disabled={download.isPending}>
            Download ZIP
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

type ImportResult = z.infer<typeof importResponse>['data'];

/** Import of an export ZIP: the counts of what came in and, per archive entry, what did not. */
export function ImportDialog(props: { scope: ProjectScope; onClose(): void }) {
  const queryClient = useQueryClient();
  const [result, setResult] = useState<ImportResult>();
  const upload = useMutation({
    mutationFn: (file: File) => authoringApi.importTests(props.scope, file),
    onSuccess: async (answer) => {
      setResult(answer.data);
      await queryClient.invalidateQueries({ queryKey: ['tests'] });
      await queryClient.invalidateQueries({ queryKey: ['tags'] });
    },
  });
  return (
    <Dialog title="Import tests" onClose={props.onClose}>
      <form
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          const file = new FormData(event.currentTarget).get('file');
          if (file instanceof File && file.size > 0) upload.mutate(file);
        }}
      >
        <div className="field">
          <label htmlFor="import-file">ZIP from an export</label>
          <input id="import-file" name="file" type="file" accept=".zip,application/zip" required />
        </div>
        {upload.error ? <ErrorMessage error={upload.error} title="Not imported" /> : null}
        {result ? (
          <div role="status" className="import-result">
            <p>
              Imported {result.imported.tests} tests, {result.imported.steps} steps,{' '}
              {result.imported.sharedSteps} shared steps, {result.imported.tags} tags.
            </p>
            {result.errors.length > 0 ? (
              <>
                <p>
                  {result.errors.length} {result.errors.length === 1 ? 'entry' : 'entries'} not imported:
                </p>
                <ul aria-label="Import errors">
                  {result.errors.map((entry) => (
                    <li key={`${entry.file}:${entry.error}`}>
                      <code>{entry.file}</code>: {entry.error}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </div>
        ) : null}
        <div className="dialog-buttons">
          <button type="submit" disabled={upload.isPending}>
            Import
          </button>
          <button type="button" onClick={props.onClose}>
            {result ? 'Close' : 'Cancel'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
