const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** Sent with the page: it runs nothing and loads nothing. */
export const pageSecurityPolicy =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/**
 * The page a browser lands on when a single sign-on attempt fails: the service's sentence and
 * its code, and the way back. The start and callback are navigations, not fetches, so a JSON
 * body would be a dead end.
 */
export function failurePage(error: { code: string; message: string; statusCode: number }): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Single sign-on failed · Stepdeck</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}code{background:#f2f2f2;padding:0 .25rem}a{color:#0b57d0}</style>
</head>
<body>
<main>
<h1>Single sign-on failed</h1>
<p role="alert">${escapeHtml(error.message)}</p>
<p>Code <code>${escapeHtml(error.code)}</code> (HTTP ${error.statusCode}).</p>
<p><a href="/console/sign-in">Back to sign-in</a></p>
</main>
</body>
</html>
`;
}
