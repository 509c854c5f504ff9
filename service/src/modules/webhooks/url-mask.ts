/**
 * A webhook URL as a member (neither admin nor owner) sees it: scheme, host and the path's
 * first segment. Chat services (Slack, Teams) put the token in the path or the query, so the
 * rest is replaced by `…`; user info (`user:password@`) is never shown.
 */
export function maskWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '…';
  }
  const [first, ...rest] = parsed.pathname.split('/').filter(Boolean);
  const hidden = rest.length > 0 || parsed.search !== '' || parsed.hash !== '' ? '/…' : '';
  return `${parsed.protocol}//${parsed.host}/${first ?? ''}${hidden}`;
}
