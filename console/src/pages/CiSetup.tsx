import { ciScopes } from '@stepdeck/contract';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { adminApi } from '../api/admin.ts';
import { authoringApi } from '../api/authoring.ts';
import { api } from '../api/endpoints.ts';
import { CopyButton } from '../components/CopyButton.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { type CiSetup, type CiTarget, cliLines, workflowStep } from '../lib/ci-snippets.ts';
import { usePermissions, whoMay } from '../lib/permissions.ts';
import { useProjectScope } from '../lib/scope.ts';
import './CiSetup.css';

/** A choice of the target select: `tag:<id>` or `test:<id>`. */
const targetOf = (choice: string): CiTarget | undefined => {
  const [kind, id] = choice.split(':');
  if (!id) return undefined;
  return kind === 'tag' ? { kind: 'tag', id } : { kind: 'tests', ids: [id] };
};

/**
 * `/projects/:projectId/ci-setup[?target=<test or directory id>]`: what the GitHub Action and the
 * CLI need to run this project's tests, ready to paste: the IDs, a workflow step, a CLI line and
 * a key holding exactly the scopes they use.
 */
export function CiSetupPage() {
  const scope = useProjectScope();
  const [search] = useSearchParams();
  const initialTarget = search.get('target');
  const { can } = usePermissions();
  const projects = useQuery({ queryKey: ['projects'], queryFn: api.projects });
  const branches = useQuery({
    queryKey: ['branches', scope.projectId],
    queryFn: () => api.branches(scope.projectId),
  });
  const tags = useQuery({ queryKey: ['tags'], queryFn: adminApi.tags });
  const tests = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId],
    queryFn: () => api.tests(scope),
  });
  const linked = useQuery({
    queryKey: ['tests', scope.projectId, scope.branchId, 'detail', initialTarget],
    queryFn: () => authoringApi.test(scope, initialTarget as string),
    enabled: Boolean(initialTarget),
    retry: false,
  });
  const [chosen, setChosen] = useState<string | undefined>(
    initialTarget ? `test:${initialTarget}` : undefined,
  );
  const createKey = useMutation({
    mutationFn: (name: string) => adminApi.createApiKey({ name, scopes: [...ciScopes] }),
  });

  const project = projects.data?.data.find((item) => item.id === scope.projectId);
  const branch = branches.data?.data.find((item) =>
    scope.branchId ? item.id === scope.branchId : item.isDefault,
  );
  const topLevel = tests.data?.children ?? [];
  const firstChoice = tags.data?.data[0]
    ? `tag:${tags.data.data[0].id}`
    : topLevel[0]
      ? `test:${topLevel[0].id}`
      : undefined;
  const choice = chosen ?? firstChoice;
  const target = choice ? targetOf(choice) : undefined;
  const targetItem =
    target?.kind === 'tests'
      ? (topLevel.find((item) => item.id === target.ids[0]) ??
        (linked.data && linked.data.test.id === target.ids[0] ? linked.data.test : undefined))
      : undefined;
  const tag = target?.kind === 'tag' ? tags.data?.data.find((item) => item.id === target.id) : undefined;
  const setup: CiSetup | undefined = target && {
    baseUrl: window.location.origin,
    projectId: scope.projectId,
    branchId: branch && !branch.isDefault ? branch.id : undefined,
    target,
  };
  const createdKey = createKey.data?.data.key;

  return (
    <section aria-labelledby="ci-heading" className="ci-setup">
      <h1 id="ci-heading">CI setup</h1>
      <p className="muted">
        Run this project&apos;s tests from a GitHub Actions workflow or any CI with the command line. Each run
        shows up under <Link to={`/projects/${scope.projectId}/runs${scope.branchQuery}`}>Runs</Link>.
      </p>
      {linked.error ? <ErrorMessage error={linked.error} title="Could not read the test" /> : null}
      <div className="field">
        <label htmlFor="ci-target">What CI runs</label>
        <select id="ci-target" value={choice ?? ''} onChange={(event) => setChosen(event.target.value)}>
          {choice ? null : <option value="">(no tags or tests yet)</option>}
          {tags.data?.data.length ? (
            <optgroup label="Every active test with the tag">
              {tags.data.data.map((item) => (
                <option key={item.id} value={`tag:${item.id}`}>
                  tag {item.name}
                </option>
              ))}
            </optgroup>
          ) : null}
          <optgroup label="A test or a directory">
            {linked.data && !topLevel.some((item) => item.id === linked.data.test.id) ? (
              <option value={`test:${linked.data.test.id}`}>
                {linked.data.test.directory ? 'directory' : 'test'} {linked.data.test.name}
              </option>
            ) : null}
            {topLevel.map((item) => (
              <option key={item.id} value={`test:${item.id}`}>
                {item.directory ? 'directory' : 'test'} {item.name}
              </option>
            ))}
          </optgroup>
        </select>
      </div>
      {targetItem?.status === 'draft' ? (
        <p className="notice" role="note">
          This test is a draft: a run leaves drafts out. Set it to active in the editor first.
        </p>
      ) : null}

      <section aria-labelledby="ci-ids-heading">
        <h2 id="ci-ids-heading">IDs</h2>
        <dl className="ci-ids">
          <IdRow label={`Project ${project?.name ?? ''}`.trim()} name="project ID" id={scope.projectId} />
          {branch && !branch.isDefault ? (
            <IdRow label={`Branch ${branch.name}`} name="branch ID" id={branch.id} />
          ) : null}
          {target?.kind === 'tag' ? (
            <IdRow label={`Tag ${tag?.name ?? ''}`.trim()} name="tag ID" id={target.id} />
          ) : target ? (
            <IdRow
              label={`${targetItem?.directory ? 'Directory' : 'Test'} ${targetItem?.name ?? ''}`.trim()}
              name={`${targetItem?.directory ? 'directory' : 'test'} ID`}
              id={target.ids[0] as string}
            />
          ) : null}
        </dl>
      </section>

      {setup ? (
        <>
          <Snippet
            id="ci-workflow"
            title="GitHub Actions step"
            text={workflowStep(setup)}
            note={
              <>
                Add it to a job&apos;s <code>steps:</code> and store the key below as the repository secret{' '}
                <code>STEPDECK_API_KEY</code>. It waits for the run, fails the job on failed tests and reports
                in the job summary and the pull request.
              </>
            }
          />
          <Snippet
            id="ci-cli"
            title="Command line (GitLab, Jenkins, a terminal)"
            text={cliLines(setup, createdKey)}
            note="Waits for the run; the exit code is 1 when it failed, 2 on a usage or API error."
          />
        </>
      ) : null}

      <section aria-labelledby="ci-key-heading">
        <h2 id="ci-key-heading">CI key</h2>
        <p>
          A key for CI holds only what the action and the CLI use:{' '}
          {ciScopes.map((item) => (
            <code key={item}>{item} </code>
          ))}
          (read tests, start runs, read them, cancel them when the job is cancelled).
        </p>
        {can('apiKeys') ? (
          <button
            type="button"
            disabled={createKey.isPending || Boolean(createdKey)}
            onClick={() => createKey.mutate(`CI ${project?.name ?? scope.projectId}`.slice(0, 128))}
          >
            Create CI key
          </button>
        ) : (
          <p className="notice" role="note">
            {whoMay('apiKeys')} can create API keys: ask one for a key with these scopes.
          </p>
        )}
        {createKey.error ? <ErrorMessage error={createKey.error} title="Could not create the key" /> : null}
        {createdKey ? (
          <div className="notice" role="status">
            <p>
              Key <strong>{createKey.data?.data.name}</strong> created. Copy it now: it is never shown again
              (the command line above holds it too).
            </p>
            <code data-testid="ci-key">{createdKey}</code>{' '}
            <CopyButton text={createdKey} label="Copy the key" />
          </div>
        ) : null}
      </section>
    </section>
  );
}

function IdRow({ label, name, id }: { label: string; name: string; id: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <code>{id}</code> <CopyButton text={id} label={`Copy ${name}`} />
      </dd>
    </>
  );
}

function Snippet(props: { id: string; title: string; text: string; note: ReactNode }) {
  return (
    <section aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      <p className="muted">{props.note}</p>
      <div className="snippet">
        <pre data-testid={props.id}>{props.text}</pre>
        <CopyButton text={props.text} label={`Copy the ${props.title}`} />
      </div>
    </section>
  );
}
