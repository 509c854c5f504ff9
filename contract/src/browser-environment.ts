import { z } from 'zod';

/**
 * The browser context a test runs in, beyond the viewport: a device preset from Playwright's
 * registry, locale, time zone, geolocation and permissions, colour scheme, offline mode, extra
 * HTTP headers and HTTP credentials. Part of the run configuration (additive fields at its top
 * level, layered like `retries`: a later layer replaces a field whole).
 */

/** The permissions Playwright's `browserContext.grantPermissions` knows for Chromium. */
export const browserPermissions = [
  'accelerometer',
  'ambient-light-sensor',
  'background-sync',
  'camera',
  'clipboard-read',
  'clipboard-write',
  'geolocation',
  'gyroscope',
  'local-fonts',
  'local-network-access',
  'magnetometer',
  'microphone',
  'midi',
  'midi-sysex',
  'notifications',
  'payment-handler',
  'storage-access',
] as const;

/**
 * Chromium devices of Playwright's registry offered first (the console's Device list); any
 * other Chromium device of the registry is accepted too, the service checks the name.
 */
export const suggestedDevices = [
  'Desktop Chrome',
  'Desktop Chrome HiDPI',
  'Desktop Edge',
  'Pixel 7',
  'Pixel 5',
  'Galaxy S9+',
  'Galaxy S8',
  'Galaxy Tab S4',
  'Nexus 7',
  'Moto G4',
] as const;

/** `{{secrets.NAME}}` (or `{{env.NAME}}`) templates: the only ones a browser context can resolve. */
const CONTEXT_TEMPLATE = /\{\{\s*(secrets|env)\.[^}\s]+\s*\}\}/g;
const ANY_TEMPLATE = /\{\{[^}]*\}\}/;
const SECRET_ONLY = /^\{\{\s*secrets\.[^}\s]+\s*\}\}$/;

/** Whether an IANA time zone name is one this JavaScript engine knows. */
export function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Whether a string is a well-formed BCP 47 language tag (`de-DE`, `en`, `zh-Hant-TW`). */
function wellFormedLocale(name: string): boolean {
  try {
    new Intl.Locale(name);
    return true;
  } catch {
    return false;
  }
}

const headerValue = z.string({ error: 'a header value must be a string' }).superRefine((value, ctx) => {
  if (ANY_TEMPLATE.test(value.replace(CONTEXT_TEMPLATE, '')))
    ctx.addIssue({
      code: 'custom',
      message:
        'a header value can use only {{secrets.NAME}} and {{env.NAME}} (vars and parameters belong to steps)',
    });
});

export const browserEnvironmentFields = {
  /** A device of Playwright's `devices` registry (Chromium ones), e.g. `Pixel 7`. */
  device: z
    .string({ error: 'device must be the name of a device, e.g. "Pixel 7"' })
    .min(1, 'device must not be empty')
    .optional(),
  locale: z
    .string({ error: 'locale must be a language tag, e.g. "de-DE"' })
    .refine(wellFormedLocale, {
      error: (issue) => `locale "${String(issue.input)}" is not a language tag; e.g. "de-DE", "en-GB", "fr"`,
    })
    .optional(),
  timezoneId: z
    .string({ error: 'timezoneId must be an IANA time zone, e.g. "Europe/Berlin"' })
    .refine(knownTimeZone, {
      error: (issue) =>
        `timezoneId "${String(issue.input)}" is not a known time zone; e.g. "Europe/Berlin", "America/New_York", "UTC"`,
    })
    .optional(),
  geolocation: z
    .object(
      {
        latitude: z
          .number({ error: 'geolocation.latitude must be a number' })
          .min(-90, 'geolocation.latitude must be between -90 and 90')
          .max(90, 'geolocation.latitude must be between -90 and 90'),
        longitude: z
          .number({ error: 'geolocation.longitude must be a number' })
          .min(-180, 'geolocation.longitude must be between -180 and 180')
          .max(180, 'geolocation.longitude must be between -180 and 180'),
        accuracy: z
          .number({ error: 'geolocation.accuracy must be a number of metres' })
          .min(0, 'geolocation.accuracy must not be negative')
          .optional(),
      },
      { error: 'geolocation must be { latitude, longitude, accuracy? }' },
    )
    .optional(),
  permissions: z
    .array(
      z.enum(browserPermissions, {
        error: (issue) =>
          `permission "${String(issue.input)}" is not one Playwright grants; known: ${browserPermissions.join(', ')}`,
      }),
      { error: 'permissions must be a list of permission names, e.g. ["geolocation"]' },
    )
    .optional(),
  colorScheme: z
    .enum(['light', 'dark', 'no-preference'], { error: 'colorScheme must be light, dark or no-preference' })
    .optional(),
  offline: z.boolean({ error: 'offline must be true or false' }).optional(),
  extraHTTPHeaders: z
    .record(z.string().min(1, 'a header name must not be empty'), headerValue, {
      error: 'extraHTTPHeaders must map header names to string values',
    })
    .optional(),
  httpCredentials: z
    .object(
      {
        username: z.string({ error: 'httpCredentials.username must be a string' }),
        password: z
          .string({ error: 'httpCredentials.password must be a string' })
          .refine((value) => SECRET_ONLY.test(value.trim()), {
            message:
              'httpCredentials.password must be a secret reference such as "{{secrets.BASIC_AUTH_PASSWORD}}", never the password itself',
          }),
      },
      { error: 'httpCredentials must be { username, password }' },
    )
    .optional(),
};

/** The browser environment of a resolved config: only the fields some layer set. */
export interface BrowserEnvironment {
  device?: string;
  locale?: string;
  timezoneId?: string;
  geolocation?: { latitude: number; longitude: number; accuracy?: number };
  permissions?: Array<(typeof browserPermissions)[number]>;
  colorScheme?: 'light' | 'dark' | 'no-preference';
  offline?: boolean;
  extraHTTPHeaders?: Record<string, string>;
  httpCredentials?: { username: string; password: string };
}

export const browserEnvironmentKeys = Object.keys(browserEnvironmentFields) as Array<
  keyof BrowserEnvironment
>;

/** The fields of a merged config that shape the browser context (undefined ones left out). */
export function browserEnvironmentOf(
  config: Partial<Record<keyof BrowserEnvironment, unknown>>,
): BrowserEnvironment {
  const out: Record<string, unknown> = {};
  for (const key of browserEnvironmentKeys) if (config[key] !== undefined) out[key] = config[key];
  return out as BrowserEnvironment;
}
