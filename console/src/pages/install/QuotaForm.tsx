import type { InstallOrganization } from '@stepdeck/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { installApi } from '../../api/install.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { formatBytes, MiB } from './quota-format.ts';

type QuotaField = 'artifactQuotaBytes' | 'inboxLimit';

/** How each quota is typed in: the artifact quota in MiB, the inbox limit as a count. */
const quotas: Record<
  QuotaField,
  { label: string; unit: string; scale: number; min: number; max: number; shown: (value: number) => string }
> = {
  artifactQuotaBytes: {
    label: 'Artifact quota',
    unit: 'MiB',
    scale: MiB,
    min: 1,
    max: 1024 * 1024,
    shown: formatBytes,
  },
  inboxLimit: {
    label: 'Inbox limit',
    unit: 'inboxes',
    scale: 1,
    min: 1,
    max: 1000,
    shown: (value) => `${value} inboxes`,
  },
};

/**
 * One quota of one organization, edited in place: empty goes back to the install's default,
 * which the form names while the quota is unset.
 */
export function QuotaForm(props: { organization: InstallOrganization; field: QuotaField }) {
  const queryClient = useQueryClient();
  const quota = quotas[props.field];
  const current = props.organization[props.field];
  const initial = current === null ? '' : String(current / quota.scale);
  const [value, setValue] = useState(initial);
  const save = useMutation({
    mutationFn: () =>
      installApi.setLimits(props.organization.id, {
        [props.field]: value.trim() === '' ? null : Math.round(Number(value) * quota.scale),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['install'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const name = `${quota.label} of ${props.organization.name}`;
  const fallback = quota.shown(props.organization.defaults[props.field]);
  return (
    <form className="install-cap" onSubmit={submit} aria-label={name}>
      <input
        type="number"
        min={quota.min}
        max={quota.max}
        step={1}
        value={value}
        placeholder={`default: ${fallback}`}
        onChange={(event) => setValue(event.target.value)}
        aria-label={`${name} (${quota.unit}; empty for the install's default)`}
      />{' '}
      <span className="muted">{current === null ? `Default (${fallback})` : quota.unit}</span>
      <button type="submit" disabled={save.isPending || value === initial}>
        Save
      </button>
      {save.error ? <ErrorMessage error={save.error} /> : null}
    </form>
  );
}
