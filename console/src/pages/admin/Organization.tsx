import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { api, sessionKey } from '../../api/endpoints.ts';
import { Field, Problems } from '../../components/admin/Field.tsx';
import { formatBytes } from '../install/quota-format.ts';
import './admin.css';

/**
 * Billing and limits: the install's subscription switch, the organization's concurrency cap,
 * its quotas (stored artifacts, inboxes; read-only here) and the inbox limits. Owners change them; admins and members see them read-only (the API refuses
 * them too).
 */
export function OrganizationPage() {
  const queryClient = useQueryClient();
  const session = useQuery({ queryKey: sessionKey, queryFn: api.session, staleTime: 60_000 });
  const organization = useQuery({ queryKey: ['organization'], queryFn: adminApi.organization });
  const inboxLimits = useQuery({
    queryKey: ['inbox-limits'],
    queryFn: adminApi.inboxLimits,
    staleTime: Infinity,
  });
  const [cap, setCap] = useState('');
  const org = organization.data?.data;
  // Subscription and limits are the install's to set, not an organization's owners'.
  const isOwner = session.data?.data.installAdmin === true;
  useEffect(() => {
    if (org) setCap(String(org.concurrencyCap));
  }, [org]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['organization'] });
  const subscription = useMutation({ mutationFn: adminApi.setSubscription, onSettled: refresh });
  const limits = useMutation({ mutationFn: adminApi.setConcurrencyCap, onSettled: refresh });
  const saveCap = (event: FormEvent) => {
    event.preventDefault();
    limits.mutate(Number(cap));
  };
  const inbox = inboxLimits.data?.data;
  return (
    <section>
      <h1>Organization</h1>
      {session.data && !isOwner && (
        <p className="notice" role="note">
          Billing and limits are read-only here: only the install's administrators change them.
        </p>
      )}
      <Problems errors={[organization.error]} />
      {org && (
        <>
          <h2>Subscription</h2>
          <p>
            {org.name}: subscription <strong>{org.subscriptionActive ? 'active' : 'inactive'}</strong>
            {!org.subscriptionActive && ' (changes and runs are refused with LICENSE_REQUIRED)'}
          </p>
          <button
            type="button"
            disabled={!isOwner}
            onClick={() => subscription.mutate(!org.subscriptionActive)}
          >
            {org.subscriptionActive ? 'Deactivate subscription' : 'Activate subscription'}
          </button>
          <Problems errors={[subscription.error]} />
          <h2>Limits</h2>
          <form
            className="filters"
            onSubmit={saveCap}
            onChange={() => limits.reset()}
            aria-label="Organization limits"
          >
            <Field label="Concurrent runs (1–64)">
              <input
                type="number"
                min={1}
                max={64}
                value={cap}
                readOnly={!isOwner}
                onChange={(event) => setCap(event.target.value)}
                required
              />
            </Field>
            <button type="submit" disabled={!isOwner}>
              Save limits
            </button>
          </form>
          {limits.isSuccess && <p role="status">Limits saved.</p>}
          <Problems errors={[limits.error]} />
          {org.quotas && (
            <dl className="message-headers" aria-label="Organization quotas">
              <dt>Stored run artifacts</dt>
              <dd>
                {formatBytes(org.quotas.artifactQuotaBytes)}
                {org.quotas.artifactQuotaIsDefault
                  ? " (the install's default)"
                  : ' (set for this organization)'}
              </dd>
              <dt>Email inboxes</dt>
              <dd>
                {org.quotas.inboxLimit}
                {org.quotas.inboxLimitIsDefault ? " (the install's default)" : ' (set for this organization)'}
              </dd>
            </dl>
          )}
          {inbox && (
            <dl className="message-headers" aria-label="Email inbox limits">
              {!org.quotas && (
                <>
                  <dt>Inboxes per organization</dt>
                  <dd>{inbox.maxPerOrg}</dd>
                </>
              )}
              <dt>Messages kept per inbox</dt>
              <dd>{inbox.maxMessages} (oldest evicted)</dd>
              <dt>Message retention</dt>
              <dd>{inbox.messageRetentionHours} hours</dd>
              <dt>Largest stored body</dt>
              <dd>{Math.round(inbox.bodyMaxBytes / 1024)} KB</dd>
            </dl>
          )}
        </>
      )}
    </section>
  );
}
