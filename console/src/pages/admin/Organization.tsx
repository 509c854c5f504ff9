import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { adminApi } from '../../api/admin.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';

/** Billing and limits: the install's subscription switch and the organization's concurrency cap. */
export function OrganizationPage() {
  const queryClient = useQueryClient();
  const organization = useQuery({ queryKey: ['organization'], queryFn: adminApi.organization });
  const [cap, setCap] = useState('');
  const org = organization.data?.data;
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
  return (
    <section>
      <h1>Organization</h1>
      {organization.error && <ErrorMessage error={organization.error} />}
      {org && (
        <>
          <h2>Subscription</h2>
          <p>
            {org.name}: subscription <strong>{org.subscriptionActive ? 'active' : 'inactive'}</strong>
            {!org.subscriptionActive && ' (changes and runs are refused with LICENSE_REQUIRED)'}
          </p>
          <button type="button" onClick={() => subscription.mutate(!org.subscriptionActive)}>
            {org.subscriptionActive ? 'Deactivate subscription' : 'Activate subscription'}
          </button>
          {subscription.error && <ErrorMessage error={subscription.error} />}
          <h2>Limits</h2>
          <form className="filters" onSubmit={saveCap} aria-label="Organization limits">
            <label>
              Concurrent runs (1–64){' '}
              <input
                type="number"
                min={1}
                max={64}
                value={cap}
                onChange={(event) => setCap(event.target.value)}
                required
              />
            </label>
            <button type="submit">Save limits</button>
          </form>
          {limits.isSuccess && <p role="status">Limits saved.</p>}
          {limits.error && <ErrorMessage error={limits.error} />}
        </>
      )}
    </section>
  );
}
