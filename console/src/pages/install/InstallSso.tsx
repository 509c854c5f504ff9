import type { SsoProvider, SsoProviderBody } from '@stepdeck/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { installApi } from '../../api/install.ts';
import { ssoApi } from '../../api/sso.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';

type DefaultRole = SsoProvider['defaultRole'];
type Role = SsoProvider['roleMappings'][number]['role'];
const roles: Role[] = ['owner', 'admin', 'member'];

/** `group = role`, one a line, as typed in the form. */
function parseMappings(text: string): SsoProviderBody['roleMappings'] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf('=');
      const group = (at < 0 ? line : line.slice(0, at)).trim();
      const role = (at < 0 ? '' : line.slice(at + 1)).trim().toLowerCase();
      // An unknown role goes to the service as typed: its 400 names what roles exist.
      return { group, role: role as Role };
    });
}

const formatMappings = (provider: SsoProvider | null) =>
  provider?.roleMappings.map((mapping) => `${mapping.group} = ${mapping.role}`).join('\n') ?? '';

/** The provider form of one organization: empty until set; the secret is write-only. */
function ProviderForm(props: {
  organizationId: string;
  organizationName: string;
  provider: SsoProvider | null;
}) {
  const queryClient = useQueryClient();
  const { provider, organizationName } = props;
  const [issuerUrl, setIssuerUrl] = useState(provider?.issuerUrl ?? '');
  const [clientId, setClientId] = useState(provider?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [slug, setSlug] = useState(provider?.slug ?? '');
  const [domains, setDomains] = useState(provider?.emailDomains.join(', ') ?? '');
  const [groupsClaim, setGroupsClaim] = useState(provider?.groupsClaim ?? 'groups');
  const [mappings, setMappings] = useState(formatMappings(provider));
  const [defaultRole, setDefaultRole] = useState<DefaultRole>(provider?.defaultRole ?? 'none');
  const [ssoRequired, setSsoRequired] = useState(provider?.ssoRequired ?? false);
  const [breakGlass, setBreakGlass] = useState(provider?.breakGlassEmail ?? '');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['install'] });
  const save = useMutation({
    mutationFn: () =>
      ssoApi.saveProvider(props.organizationId, {
        issuerUrl: issuerUrl.trim(),
        clientId: clientId.trim(),
        ...(clientSecret ? { clientSecret } : {}),
        slug: slug.trim(),
        emailDomains: domains
          .split(/[\s,]+/)
          .map((domain) => domain.trim())
          .filter(Boolean),
        groupsClaim: groupsClaim.trim() || 'groups',
        roleMappings: parseMappings(mappings),
        defaultRole,
        ssoRequired,
        breakGlassEmail: breakGlass.trim() || null,
      }),
    onSuccess: async () => {
      setClientSecret('');
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => ssoApi.removeProvider(props.organizationId),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="install-sso-form" onSubmit={submit} aria-label={`Single sign-on of ${organizationName}`}>
      {provider ? (
        <p className="muted">
          Register this redirect URI at the provider: <code>{provider.redirectUri}</code>
        </p>
      ) : (
        <p className="muted">
          No single sign-on provider for {organizationName} yet: its people sign in with passwords.
        </p>
      )}
      <label>
        Issuer URL
        <input
          type="url"
          required
          value={issuerUrl}
          onChange={(event) => setIssuerUrl(event.target.value)}
          placeholder="https://login.example.com/realms/acme"
        />
      </label>
      <label>
        Client ID
        <input required value={clientId} onChange={(event) => setClientId(event.target.value)} />
      </label>
      <label>
        Client secret
        <input
          type="password"
          autoComplete="new-password"
          required={!provider}
          value={clientSecret}
          onChange={(event) => setClientSecret(event.target.value)}
          placeholder={provider ? 'Stored; leave empty to keep it' : ''}
        />
      </label>
      <label>
        Sign-on name (typed on the sign-in page)
        <input required value={slug} onChange={(event) => setSlug(event.target.value)} placeholder="acme" />
      </label>
      <label>
        Email domains (comma-separated)
        <input value={domains} onChange={(event) => setDomains(event.target.value)} placeholder="acme.com" />
      </label>
      <label>
        Groups claim
        <input value={groupsClaim} onChange={(event) => setGroupsClaim(event.target.value)} />
      </label>
      <label>
        Role mapping (one “group = role” a line; roles: {roles.join(', ')})
        <textarea rows={4} value={mappings} onChange={(event) => setMappings(event.target.value)} />
      </label>
      <label>
        When no group matches
        <select
          aria-label="When no group matches"
          value={defaultRole}
          onChange={(event) => setDefaultRole(event.target.value as DefaultRole)}
        >
          <option value="none">No access</option>
          <option value="member">Member</option>
          <option value="admin">Admin</option>
          <option value="owner">Owner</option>
        </select>
      </label>
      <label className="install-sso-check">
        <input
          type="checkbox"
          checked={ssoRequired}
          onChange={(event) => setSsoRequired(event.target.checked)}
        />{' '}
        Single sign-on required (passwords refused, except the break-glass owner's)
      </label>
      <label>
        Break-glass owner (email; may still use a password)
        <input type="email" value={breakGlass} onChange={(event) => setBreakGlass(event.target.value)} />
      </label>
      <div className="row-actions">
        <button type="submit" disabled={save.isPending}>
          Save single sign-on
        </button>
        {provider ? (
          <button type="button" disabled={remove.isPending} onClick={() => remove.mutate()}>
            Remove single sign-on
          </button>
        ) : null}
      </div>
      {save.isSuccess && !save.isPending ? <p role="status">Saved.</p> : null}
      {save.error ? <ErrorMessage error={save.error} title="Could not save single sign-on" /> : null}
      {remove.error ? <ErrorMessage error={remove.error} title="Could not remove single sign-on" /> : null}
    </form>
  );
}

/** Each organization's OpenID Connect provider, one organization at a time. */
export function InstallSso(props: { enabled: boolean }) {
  const organizations = useQuery({
    queryKey: ['install', 'organizations'],
    queryFn: installApi.organizations,
    enabled: props.enabled,
  });
  const [chosen, setChosen] = useState<string | undefined>();
  const list = organizations.data?.data ?? [];
  const organization = list.find((item) => item.id === chosen) ?? list[0];
  const provider = useQuery({
    queryKey: ['install', 'sso', organization?.id],
    queryFn: () => ssoApi.provider(organization?.id as string),
    enabled: props.enabled && organization !== undefined,
  });
  return (
    <section aria-labelledby="install-sso">
      <h2 id="install-sso">Single sign-on</h2>
      {organizations.error ? <ErrorMessage error={organizations.error} /> : null}
      {list.length === 0 ? (
        <p className="muted">No organizations yet.</p>
      ) : (
        <div className="install-sso-choice">
          <label htmlFor="install-sso-organization">Organization</label>
          <select
            id="install-sso-organization"
            value={organization?.id}
            onChange={(event) => setChosen(event.target.value)}
          >
            {list.map((item) => (
              <option key={item.id} value={item.id}>
                {item.name}
              </option>
            ))}
          </select>
        </div>
      )}
      {provider.error ? <ErrorMessage error={provider.error} /> : null}
      {organization && provider.isSuccess ? (
        <ProviderForm
          // A fresh form per organization and per saved version.
          key={`${organization.id}:${provider.data.data?.updatedAt ?? 'none'}`}
          organizationId={organization.id}
          organizationName={organization.name}
          provider={provider.data.data}
        />
      ) : null}
    </section>
  );
}
