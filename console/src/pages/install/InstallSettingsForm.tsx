import type { InstallSettings, InstallSettingsBody } from '@stepdeck/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { installApi } from '../../api/install.ts';
import { Field } from '../../components/admin/Field.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';
import './InstallSettingsForm.css';

const lines = (text: string) =>
  text
    .split(/[\n,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);

/**
 * The install's settings: the private addresses webhooks and chat alerts may reach, the runner's
 * egress rules, and the SMTP relay email alerts go through (its password is write-only).
 */
export function InstallSettingsForm({ settings }: { settings: InstallSettings }) {
  const queryClient = useQueryClient();
  const relay = settings.smtpRelay;
  const [allowed, setAllowed] = useState(settings.webhookAllowedTargets.join('\n'));
  const [deny, setDeny] = useState(settings.runnerEgress.deny.join('\n'));
  const [allow, setAllow] = useState(settings.runnerEgress.allow.join('\n'));
  const [host, setHost] = useState(relay?.host ?? '');
  const [port, setPort] = useState(String(relay?.port ?? 587));
  const [security, setSecurity] = useState<'tls' | 'starttls' | 'none'>(relay?.security ?? 'starttls');
  const [user, setUser] = useState(relay?.user ?? '');
  const [password, setPassword] = useState('');
  const [from, setFrom] = useState(relay?.from ?? '');
  const save = useMutation({
    mutationFn: (body: InstallSettingsBody) => installApi.saveSettings(body),
    onSuccess: async () => {
      setPassword('');
      await queryClient.invalidateQueries({ queryKey: ['install'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      webhookAllowedTargets: lines(allowed),
      runnerEgress: { deny: lines(deny), allow: lines(allow) },
      smtpRelay:
        host.trim() === ''
          ? null
          : {
              host: host.trim(),
              port: Number(port),
              security,
              user: user.trim() || null,
              ...(password ? { password } : {}),
              from: from.trim(),
            },
    });
  };
  const environmentList = (entries: string[]) => (entries.length > 0 ? entries.join(', ') : 'none');
  return (
    <section aria-labelledby="install-settings">
      <h2 id="install-settings">Settings</h2>
      <p className="muted">
        Every change is written to the install&apos;s log (a password only as &quot;replaced&quot;).
        {settings.updatedAt && settings.updatedBy ? (
          <>
            {' '}
            Last changed by {settings.updatedBy}, <Timestamp iso={settings.updatedAt} />.
          </>
        ) : null}
      </p>
      <form className="admin-form install-settings" onSubmit={submit} aria-label="Install settings">
        <fieldset>
          <legend>Private targets of webhooks and chat alerts</legend>
          <Field
            label="Allowed private addresses"
            hint={`IP addresses or CIDR ranges, one per line (an internal Jenkins, a chat bridge). In effect in production too. From the environment (WEBHOOK_ALLOWED_TARGETS): ${environmentList(settings.environmentWebhookAllowedTargets)}.`}
          >
            <textarea rows={3} value={allowed} onChange={(event) => setAllowed(event.target.value)} />
          </Field>
        </fieldset>
        <fieldset>
          <legend>Runner egress</legend>
          <Field
            label="Denied targets"
            hint={`Added to RUNNER_EGRESS_DENY for runs that start after saving: CIDRs, addresses or host names, optionally :port. From the environment: ${environmentList(settings.environmentRunnerEgress.deny)}.`}
          >
            <textarea rows={3} value={deny} onChange={(event) => setDeny(event.target.value)} />
          </Field>
          <Field
            label="Allowed targets"
            hint={`Added to RUNNER_EGRESS_ALLOW (wins over every deny rule). From the environment: ${environmentList(settings.environmentRunnerEgress.allow)}.`}
          >
            <textarea rows={3} value={allow} onChange={(event) => setAllow(event.target.value)} />
          </Field>
        </fieldset>
        <fieldset>
          <legend>SMTP relay for email alerts</legend>
          <Field label="SMTP host" hint="Leave empty to remove the relay (email alerts then stop).">
            <input value={host} onChange={(event) => setHost(event.target.value)} />
          </Field>
          <Field label="SMTP port">
            <input
              type="number"
              min={1}
              max={65535}
              value={port}
              onChange={(event) => setPort(event.target.value)}
            />
          </Field>
          <Field label="Connection security">
            <select
              value={security}
              onChange={(event) => setSecurity(event.target.value as 'tls' | 'starttls' | 'none')}
            >
              <option value="starttls">STARTTLS (port 587)</option>
              <option value="tls">TLS from the start (port 465)</option>
              <option value="none">None (a relay on this host only)</option>
            </select>
          </Field>
          <Field label="SMTP user">
            <input value={user} autoComplete="off" onChange={(event) => setUser(event.target.value)} />
          </Field>
          <Field
            label="SMTP password"
            hint={
              relay?.passwordSet ? 'A password is stored; leave empty to keep it.' : 'No password stored.'
            }
          >
            <input
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </Field>
          <Field label="From address">
            <input
              type="email"
              value={from}
              onChange={(event) => setFrom(event.target.value)}
              required={host !== ''}
            />
          </Field>
        </fieldset>
        <button type="submit" disabled={save.isPending}>
          Save settings
        </button>
        {save.isSuccess ? (
          <p role="status" className="muted">
            Settings saved.
          </p>
        ) : null}
      </form>
      {save.error ? <ErrorMessage error={save.error} title="Settings not saved" /> : null}
    </section>
  );
}
