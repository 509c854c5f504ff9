import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { NameField } from '../../components/admin/Field.tsx';
import { ResourceTable } from '../../components/admin/ResourceTable.tsx';
import { RoleNote } from '../../components/admin/RoleNote.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { usePermissions } from '../../lib/permissions.ts';

/** The organization's tags (what tag runs and schedules target). */
export function TagsPage() {
  const queryClient = useQueryClient();
  const tags = useQuery({ queryKey: ['tags'], queryFn: adminApi.tags });
  const [name, setName] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['tags'] });
  const create = useMutation({
    mutationFn: () => adminApi.createTag(name),
    onSuccess: () => {
      setName('');
      void refresh();
    },
  });
  const remove = useMutation({ mutationFn: adminApi.deleteTag, onSettled: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const mayChange = usePermissions().can('tags');
  return (
    <section>
      <h1>Tags</h1>
      <RoleNote permission="tags" what="create or delete tags" />
      {mayChange && (
        <form className="filters" onSubmit={submit} onChange={() => create.reset()} aria-label="Create a tag">
          <NameField label="Tag name" value={name} onChange={setName} />
          <button type="submit">Create tag</button>
        </form>
      )}
      {create.error && <ErrorMessage error={create.error} />}
      {remove.error && <ErrorMessage error={remove.error} />}
      <ResourceTable
        caption="Tags of the organization"
        error={tags.error}
        rows={tags.data?.data ?? []}
        rowKey={(tag) => tag.id}
        columns={[
          { header: 'Name', cell: (tag) => tag.name },
          { header: 'Id', cell: (tag) => <code>{tag.id}</code> },
          ...(mayChange
            ? [
                {
                  header: 'Actions',
                  cell: (tag: { id: string; name: string }) => (
                    <button
                      type="button"
                      aria-label={`Delete ${tag.name}`}
                      onClick={() => remove.mutate(tag.id)}
                    >
                      Delete
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
