import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';

/**
 * A loopback site for the network, TOTP and accessibility steps: a page that renders items from
 * `/api/items` (and shows an error state when the fetch fails), a login whose one-time code the
 * server checks with otpauth, and pages with and without accessibility violations.
 */

/** The login's TOTP key (base32) and the same as an `otpauth://` URI. */
export const MFA_KEY = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
export const MFA_URI = `otpauth://totp/Shop:ada@example.com?secret=${MFA_KEY}&issuer=Shop&algorithm=SHA256&digits=8&period=30`;
const loginTotp = new TOTP({
  secret: Secret.fromBase32(MFA_KEY),
  algorithm: 'SHA256',
  digits: 8,
  period: 30,
});

const ITEMS = `<!doctype html>
<html lang="en"><head><title>Items</title></head>
<body>
  <ul id="items"></ul>
  <p id="error"></p>
  <button id="more">More</button>
  <script>
    const show = (url) => fetch(url)
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error('HTTP ' + res.status))))
      .then((data) => {
        document.getElementById('items').innerHTML += data.items.map((item) => '<li>' + item.name + '</li>').join('');
      })
      .catch((error) => { document.getElementById('error').textContent = 'Could not load items: ' + error.message; });
    show('/api/items');
    document.getElementById('more').addEventListener('click', () => show('/api/items?page=2'));
  </script>
</body></html>`;

const LOGIN = `<!doctype html>
<html lang="en"><head><title>Sign in</title></head>
<body>
  <label>Code <input id="code" autocomplete="one-time-code"></label>
  <button id="verify">Verify</button>
  <p id="result"></p>
  <script>
    document.getElementById('verify').addEventListener('click', async () => {
      const res = await fetch('/api/verify', { method: 'POST', body: JSON.stringify({ code: document.getElementById('code').value }) });
      const body = await res.json();
      document.getElementById('result').textContent = res.ok ? 'Welcome, ' + body.user : 'Invalid code';
    });
  </script>
</body></html>`;

const ACCESSIBLE = `<!doctype html>
<html lang="en"><head><title>Accessible</title></head>
<body><main>
  <h1>Contact</h1>
  <img src="/logo.png" alt="Shop logo" width="10" height="10">
  <label for="email">Email</label><input id="email" type="email">
  <button>Send</button>
</main></body></html>`;

/** `#good` passes every rule; `#bad` has an image without alt, an unlabelled field, faint text. */
const INACCESSIBLE = `<!doctype html>
<html lang="en"><head><title>Inaccessible</title></head>
<body><main>
  <section id="good"><h1>Welcome</h1><p>Readable text.</p></section>
  <section id="bad">
    <img src="/logo.png" id="logo" width="10" height="10">
    <input type="text" name="q">
    <p class="faint" style="color:#cccccc;background:#ffffff">Faint text</p>
  </section>
</main></body></html>`;

export interface NetworkSite {
  url: string;
  close(): Promise<void>;
}

export async function startNetworkSite(): Promise<NetworkSite> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const html = (page: string) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page);
      };
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === '/items') return html(ITEMS);
      if (url.pathname === '/login') return html(LOGIN);
      if (url.pathname === '/accessible') return html(ACCESSIBLE);
      if (url.pathname === '/inaccessible') return html(INACCESSIBLE);
      if (url.pathname === '/api/items')
        return json(
          200,
          url.searchParams.get('page') === '2'
            ? { items: [{ name: 'Plum' }] }
            : { items: [{ name: 'Apple' }, { name: 'Pear' }] },
        );
      if (url.pathname === '/api/verify') {
        let code = '';
        try {
          code = String((JSON.parse(body) as { code?: unknown }).code ?? '');
        } catch {
          // An unreadable body is a wrong code.
        }
        // One step of clock drift either way, as login servers allow.
        return loginTotp.validate({ token: code, window: 1 }) === null
          ? json(401, { error: 'invalid code' })
          : json(200, { user: 'Ada' });
      }
      if (url.pathname === '/logo.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end();
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
