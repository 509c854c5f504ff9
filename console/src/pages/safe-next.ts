/** Only paths inside the console: a `next` pointing elsewhere would be an open redirect. */
export function safeNext(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/sign-in')) return '/';
  return next;
}
