import type { InstallSettings, InstallSettingsBody } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { addressToCidr, type Config, defaultRunnerSlots } from '../../config.ts';
import { appError } from '../../errors.ts';
import { parseEgressRules } from '../../runner/egress.ts';
import { SecretBox } from '../../secret-box.ts';
import { type InstallSettingRow, writeSettingRows } from './repository.ts';
import { forgetEffective, readStored, type StoredSmtpRelay } from './store.ts';

/** The install's settings as install admins read and change them (never a password's value). */
export class InstallSettingsService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly config: Config;

  constructor(options: { db: Db; clock: Clock; config: Config }) {
    this.db = options.db;
    this.clock = options.clock;
    this.config = options.config;
  }

  async view(): Promise<InstallSettings> {
    const stored = await readStored(this.db);
    const relay = stored.smtpRelay;
    const environment = this.config.runnerEgress ?? { deny: [], allow: [] };
    return {
      runnerSlots: this.config.runnerSlots ?? defaultRunnerSlots,
      organizationDeleteGraceDays: this.config.organizationDeleteGraceDays ?? 30,
      webhookAllowedTargets: stored.webhookAllowedTargets,
      environmentWebhookAllowedTargets: this.config.webhookAllowedTargets,
      runnerEgress: stored.runnerEgress,
      environmentRunnerEgress: {
        deny: environment.deny.map((rule) => rule.text),
        allow: environment.allow.map((rule) => rule.text),
      },
      smtpRelay: relay
        ? {
            host: relay.host,
            port: relay.port,
            security: relay.security,
            user: relay.user,
            passwordSet: relay.passwordSealed !== null,
            from: relay.from,
          }
        : null,
      updatedAt: stored.updatedAt,
      updatedBy: stored.updatedBy,
    };
  }

  /**
   * Replaces each setting the body names; returns what changed, in words for the audit log
   * (names only: a password is said to be set or removed, never shown).
   */
  async update(
    body: InstallSettingsBody,
    actorEmail: string,
  ): Promise<{ view: InstallSettings; changed: string[] }> {
    const stored = await readStored(this.db);
    const now = isoNow(this.clock);
    const rows: InstallSettingRow[] = [];
    const changed: string[] = [];
    const row = (key: string, value: unknown) =>
      rows.push({ key, value: JSON.stringify(value), updatedAt: now, updatedBy: actorEmail });

    if (body.webhookAllowedTargets !== undefined) {
      const targets = body.webhookAllowedTargets.map((entry) => {
        const cidr = addressToCidr(entry);
        if (cidr === undefined)
          throw appError(
            'INSTALL_SETTING_INVALID',
            `webhookAllowedTargets: ${entry} is not an IP address or CIDR range`,
          );
        return cidr;
      });
      const unique = [...new Set(targets)];
      row('webhookAllowedTargets', unique);
      changed.push(`webhookAllowedTargets=[${unique.join(', ')}]`);
    }
    if (body.runnerEgress !== undefined) {
      const { deny, allow } = body.runnerEgress;
      try {
        parseEgressRules(deny.join(','), 'install settings runnerEgress.deny');
        parseEgressRules(allow.join(','), 'install settings runnerEgress.allow');
      } catch (error) {
        throw appError('INSTALL_SETTING_INVALID', (error as Error).message.replace(/^install settings /, ''));
      }
      row('runnerEgress', { deny, allow });
      changed.push(`runnerEgress deny=[${deny.join(', ')}] allow=[${allow.join(', ')}]`);
    }
    if (body.smtpRelay !== undefined) {
      const input = body.smtpRelay;
      if (input === null) {
        row('smtpRelay', null);
        changed.push('smtpRelay removed');
      } else {
        let passwordSealed = stored.smtpRelay?.passwordSealed ?? null;
        let passwordChange = 'kept';
        if (input.password === null || input.password === '') {
          passwordSealed = null;
          passwordChange = 'none';
        } else if (input.password !== undefined) {
          passwordSealed = (await SecretBox.open(this.db)).seal(input.password);
          passwordChange = 'replaced';
        }
        const relay: StoredSmtpRelay = {
          host: input.host,
          port: input.port,
          security: input.security,
          user: input.user ? input.user : null,
          passwordSealed,
          from: input.from,
        };
        row('smtpRelay', relay);
        changed.push(
          `smtpRelay ${relay.host}:${relay.port} ${relay.security} user=${relay.user ?? '(none)'} password ${passwordChange} from=${relay.from}`,
        );
      }
    }
    await writeSettingRows(this.db, rows);
    forgetEffective(this.db);
    return { view: await this.view(), changed };
  }
}
