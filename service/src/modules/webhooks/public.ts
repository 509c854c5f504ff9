/**
 * What other modules may use of the webhooks module: the private-target guard every outgoing
 * URL passes (alert channels' too), the environment's and install's allow-list in effect, and
 * the mask a member sees instead of a URL that carries a token.
 */
export { runUrl } from './payload.ts';
export { allowedTargetsNow, type WebhookSettings } from './settings.ts';
export {
  type CheckedTarget,
  checkTargetUrl,
  pinnedLookup,
  type Resolver,
  systemResolver,
  UrlRuleError,
} from './url-guard.ts';
export { maskWebhookUrl } from './url-mask.ts';
