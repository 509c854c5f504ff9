import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';

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
  return (
    <section>
      <h1>Tags</h1>
      <form className="filters" onSubmit={submit} aria-label="Create a tag">
        <label>
          Tag name <input value={name} onChange={(event) => setName(event.target.value)} required />
        </label>
        <button type="submit">Create tag</button>
      </form>
      {create.error && <ErrorMessage error={create.error} />}
      {remove.error && <ErrorMessage error={remove.error} />}
      {tags.error && <ErrorMessage error={tags.error} />}
      <table>
        <caption>Tags of the organization</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(tags.data?.data ?? []).map((tag) => (
            <tr key={tag.id}>
              <td>{tag.name}</td>
              <td>
                <code>{tag.id}</code>
              </td>
              <td>
                <button type="button" aria-label={`Delete ${tag.name}`} onClick={() => remove.mutate(tag.id)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
