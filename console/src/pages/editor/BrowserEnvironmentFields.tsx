import { browserPermissions, suggestedDevices } from '@stepdeck/contract';

/**
 * The run configuration's browser environment (a group of the run config form): the device
 * preset, locale, time zone, colour scheme, offline, geolocation and permissions, extra HTTP
 * headers and HTTP credentials. Every field has its label; the contract's message is named on
 * the field it is about.
 */
export function BrowserEnvironmentFields(props: {
  id: string;
  read(path: string[]): unknown;
  set(path: string[], value: unknown): void;
  errorOf(path: string[]): string | undefined;
}) {
  const { id, read, set, errorOf } = props;
  const device = String(read(['device']) ?? '');
  const devices: string[] = [...suggestedDevices];
  if (device && !devices.includes(device)) devices.push(device);
  const text = (path: string[], label: string, placeholder: string) => {
    const fieldId = `${id}-${path.join('-')}`;
    const error = errorOf(path);
    return (
      <div className="field">
        <label htmlFor={fieldId}>{label}</label>
        <input
          id={fieldId}
          value={String(read(path) ?? '')}
          placeholder={placeholder}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${fieldId}-error` : undefined}
          onChange={(event) => set(path, event.target.value || undefined)}
        />
        {error ? (
          <span id={`${fieldId}-error`} className="field-error">
            {error}
          </span>
        ) : null}
      </div>
    );
  };
  const number = (path: string[], label: string) => {
    const fieldId = `${id}-${path.join('-')}`;
    const value = read(path);
    const error = errorOf(path);
    return (
      <div className="field">
        <label htmlFor={fieldId}>{label}</label>
        <input
          id={fieldId}
          type="number"
          step="any"
          value={value === undefined ? '' : String(value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${fieldId}-error` : undefined}
          onChange={(event) => set(path, event.target.value === '' ? undefined : Number(event.target.value))}
        />
        {error ? (
          <span id={`${fieldId}-error`} className="field-error">
            {error}
          </span>
        ) : null}
      </div>
    );
  };
  const headers = (read(['extraHTTPHeaders']) ?? {}) as Record<string, string>;
  const headersText = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  const permissions = (read(['permissions']) ?? []) as string[];
  const permissionsError = errorOf(['permissions']) ?? errorOf(['permissions', '0']);
  return (
    <fieldset className="browser-environment">
      <legend>Browser environment</legend>
      <div className="field">
        <label htmlFor={`${id}-device`}>Device</label>
        <select
          id={`${id}-device`}
          aria-describedby={`${id}-device-hint`}
          value={device}
          onChange={(event) => set(['device'], event.target.value || undefined)}
        >
          <option value="">none (desktop, the viewport above)</option>
          {devices.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <small id={`${id}-device-hint`} className="muted field-hint">
          Playwright's device preset: viewport, user agent, touch. A viewport set above wins over the
          device's.
        </small>
      </div>
      {text(['locale'], 'Locale', 'e.g. de-DE')}
      {text(['timezoneId'], 'Time zone', 'e.g. Europe/Berlin')}
      <div className="field">
        <label htmlFor={`${id}-colorScheme`}>Colour scheme</label>
        <select
          id={`${id}-colorScheme`}
          value={String(read(['colorScheme']) ?? '')}
          onChange={(event) => set(['colorScheme'], event.target.value || undefined)}
        >
          <option value="">default (light)</option>
          <option value="light">light</option>
          <option value="dark">dark</option>
          <option value="no-preference">no-preference</option>
        </select>
      </div>
      <div className="field">
        <label>
          <input
            type="checkbox"
            checked={read(['offline']) === true}
            onChange={(event) => set(['offline'], event.target.checked ? true : undefined)}
          />{' '}
          Offline
        </label>
      </div>
      {number(['geolocation', 'latitude'], 'Geolocation latitude')}
      {number(['geolocation', 'longitude'], 'Geolocation longitude')}
      {number(['geolocation', 'accuracy'], 'Geolocation accuracy (m)')}
      <div className="field">
        <label htmlFor={`${id}-permissions`}>Permissions</label>
        <input
          id={`${id}-permissions`}
          value={permissions.join(', ')}
          placeholder="e.g. geolocation, clipboard-read"
          aria-describedby={`${id}-permissions-hint${permissionsError ? ` ${id}-permissions-error` : ''}`}
          aria-invalid={permissionsError ? true : undefined}
          onChange={(event) => {
            const list = event.target.value
              .split(',')
              .map((item) => item.trim())
              .filter(Boolean);
            set(['permissions'], list.length ? list : undefined);
          }}
        />
        <small id={`${id}-permissions-hint`} className="muted field-hint">
          Comma-separated, granted to every page: {browserPermissions.join(', ')}
        </small>
        {permissionsError ? (
          <span id={`${id}-permissions-error`} className="field-error">
            {permissionsError}
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${id}-headers`}>Extra HTTP headers</label>
        <textarea
          id={`${id}-headers`}
          rows={3}
          defaultValue={headersText}
          placeholder={'X-Team: qa\nAuthorization: Bearer {{secrets.API_TOKEN}}'}
          aria-describedby={`${id}-headers-hint`}
          onBlur={(event) => {
            const entries = event.target.value
              .split('\n')
              .map((line) => line.trim())
              .filter(Boolean)
              .map((line) => {
                const colon = line.indexOf(':');
                return colon < 0 ? [line, ''] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
              });
            set(['extraHTTPHeaders'], entries.length ? Object.fromEntries(entries) : undefined);
          }}
        />
        <small id={`${id}-headers-hint`} className="muted field-hint">
          One "Name: value" a line; values may use {'{{secrets.NAME}}'}.
        </small>
      </div>
      {text(['httpCredentials', 'username'], 'HTTP credentials: user name', 'e.g. ada')}
      {text(
        ['httpCredentials', 'password'],
        'HTTP credentials: password (a secret)',
        '{{secrets.BASIC_AUTH_PASSWORD}}',
      )}
    </fieldset>
  );
}
