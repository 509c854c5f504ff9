import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { adminApi } from '../../api/admin.ts';
import { Field, NameField, Problems } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import { usePermissions } from '../../lib/permissions.ts';
import { useProjectScope } from '../../lib/scope.ts';

/** The branches of one project: list, and a new one copied from a source branch. */
function Branches({ projectId, projectName }: { projectId: string; projectName: string }) {
  const queryClient = useQueryClient();
  const branches = useQuery({
    queryKey: ['branches', projectId],
    queryFn: () => adminApi.branches(projectId),
  });
  const [name, setName] = useState('');
  const [source, setSource] = useState('');
  const create = useMutation({
    mutationFn: () =>
      adminApi.createBranch(projectId, { name, ...(source ? { sourceBranchId: source } : {}) }),
    onSuccess: () => {
      setName('');
      void queryClient.invalidateQueries({ queryKey: ['branches', projectId] });
    },
  });
  const list = branches.data?.data ?? [];
  const nameOf = (id: string | null) => list.find((branch) => branch.id === id)?.name ?? '—';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const mayChange = usePermissions().can('projects');
  return (
    <section aria-label={`Branches of ${projectName}`}>
      <h2>Branches of {projectName}</h2>
      {mayChange && (
        <form
          className="filters"
          onSubmit={submit}
          onChange={() => create.reset()}
          aria-label="Create a branch"
        >
          <NameField label="Branch name" value={name} onChange={setName} />
          <Field label="Copy tests from">
            <select value={source} onChange={(event) => setSource(event.target.value)}>
              <option value="">The default branch</option>
              {list.map((branch) => (
                <option key={branch.id} value={branch.id}>
                  {branch.name}
                </option>
              ))}
            </select>
          </Field>
          <button type="submit">Create branch</button>
        </form>
      )}
      <Problems errors={[create.error]} />
      <ResourceTable
        caption={`Branches of ${projectName}`}
        error={branches.error}
        rows={list}
        rowKey={(branch) => branch.id}
        columns={[
          { header: 'Name', cell: (branch) => branch.name },
          { header: 'Default', cell: (branch) => (branch.isDefault ? 'Default' : '') },
          { header: 'Copied from', cell: (branch) => nameOf(branch.sourceBranchId) },
          { header: 'Created', cell: (branch) => <Timestamp iso={branch.createdAt} /> },
          {
            header: 'Open',
            cell: (branch) => (
              <Link to={`/projects/${projectId}/runs${branch.isDefault ? '' : `?branch=${branch.id}`}`}>
                Runs on {branch.name}
              </Link>
            ),
          },
        ]}
      />
    </section>
  );
}

/** Projects of the organization and their branches; admins and owners create them. */
export function ProjectsPage() {
  const { projectId } = useProjectScope();
  const queryClient = useQueryClient();
  const projects = useQuery({ queryKey: ['projects'], queryFn: adminApi.projects });
  const [name, setName] = useState('');
  const [open, setOpen] = useState<string>(projectId);
  const create = useMutation({
    mutationFn: () => adminApi.createProject(name),
    onSuccess: (answer) => {
      setName('');
      setOpen(answer.data.id);
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  const list = projects.data?.data ?? [];
  const opened = list.find((project) => project.id === open);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const mayChange = usePermissions().can('projects');
  return (
    <section>
      <h1>Projects and branches</h1>
      <RoleNote permission="projects" what="create projects and branches" />
      {mayChange && (
        <form
          className="filters"
          onSubmit={submit}
          onChange={() => create.reset()}
          aria-label="Create a project"
        >
          <NameField label="Project name" value={name} onChange={setName} />
          <button type="submit">Create project</button>
        </form>
      )}
      <Problems errors={[create.error]} />
      <ResourceTable
        caption="Projects of the organization"
        error={projects.error}
        rows={list}
        rowKey={(project) => project.id}
        selected={open}
        columns={[
          { header: 'Name', cell: (project) => project.name },
          { header: 'Created', cell: (project) => <Timestamp iso={project.createdAt} /> },
          {
            header: 'Actions',
            cell: (project) => (
              <>
                <button
                  type="button"
                  aria-label={`Branches of ${project.name}`}
                  onClick={() => setOpen(project.id)}
                >
                  Branches
                </button>{' '}
                <Link to={`/projects/${project.id}/runs`}>Open {project.name}</Link>
              </>
            ),
          },
        ]}
      />
      {opened && <Branches key={opened.id} projectId={opened.id} projectName={opened.name} />}
    </section>
  );
}
