import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client.ts';
import { api, sessionKey } from '../../api/endpoints.ts';
import { installApi } from '../../api/install.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { InstallAdmins } from './InstallAdmins.tsx';
import { InstallAuditLog } from './InstallAuditLog.tsx';
import { InstallOrganizations } from './InstallOrganizations.tsx';
import { InstallSettingsForm } from './InstallSettingsForm.tsx';
import { InstallSso } from './InstallSso.tsx';
import '../admin/admin.css';
import './install.css';

/**
 * `/console/projects/:projectId/install`: the install administration, for the people who run
 * the install (install admins): every organization, the install admins and the install's log.
 */
export function InstallPage() {
  const session = useQuery({ queryKey: sessionKey, queryFn: api.session, staleTime: 60_000 });
  const isInstallAdmin = session.data?.data.installAdmin === true;
  const settings = useQuery({
    queryKey: ['install', 'settings'],
    queryFn: installApi.settings,
    enabled: isInstallAdmin,
  });
  if (session.data && !isInstallAdmin)
    return (
      <section>
        <h1>Install administration</h1>
        <p className="muted">Only the install's administrators can open this page.</p>
      </section>
    );
  if (settings.error instanceof ApiError && settings.error.status === 403)
    return (
      <section>
        <h1>Install administration</h1>
        <ErrorMessage error={settings.error} />
      </section>
    );
  return (
    <section className="install-page">
      <h1>Install administration</h1>
      {settings.data ? (
        <p className="muted">
          Runner slots: {settings.data.data.runnerSlots} · a deleted organization is purged after{' '}
          {settings.data.data.organizationDeleteGraceDays} days unless restored
        </p>
      ) : null}
      <InstallOrganizations enabled={isInstallAdmin} runnerSlots={settings.data?.data.runnerSlots} />
      <InstallSso enabled={isInstallAdmin} />
      {settings.data ? <InstallSettingsForm settings={settings.data.data} /> : null}
      <InstallAdmins enabled={isInstallAdmin} />
      <InstallAuditLog enabled={isInstallAdmin} />
    </section>
  );
}
