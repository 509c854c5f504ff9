/**
 * What other modules may use of the install settings: the settings in effect (the install
 * admins' allow-list and egress rules, the SMTP relay with its password opened). Read through a
 * short cache; never returned to a client as they are.
 */

export { sealedSmtpRelayPassword } from './repository.ts';
export {
  type EffectiveInstallSettings,
  effectiveInstallSettings,
  type SmtpRelay,
} from './store.ts';
