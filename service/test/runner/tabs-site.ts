import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StepNode } from '@stepdeck/contract';
import { step } from './fixtures.ts';

/**
 * A site on loopback for the tab and frame steps: a home page with a `target=_blank` link, a
 * `window.open` popup that writes back to its opener, a button that opens nothing, and an
 * iframe holding a shop with a nested iframe and a link of its own to a new tab.
 */
const HOME = `<!doctype html><html><head><title>Home</title></head><body>
  <h1>Home</h1>
  <a id="help" href="/help" target="_blank">Help</a>
  <button id="open-popup" onclick="window.open('/popup', 'chat', 'width=400,height=300')">Chat</button>
  <button id="nothing">Does nothing</button>
  <p id="reply-out">no reply</p>
  <iframe id="shop" title="Shop" src="/frame" width="500" height="300"></iframe>
</body></html>`;

const HELP = `<!doctype html><html><head><title>Help</title></head><body><h1>Help centre</h1></body></html>`;

const POPUP = `<!doctype html><html><head><title>Chat</title></head><body>
  <input id="reply" aria-label="Reply">
  <button id="send" onclick="window.opener.document.getElementById('reply-out').textContent = document.getElementById('reply').value">Send</button>
</body></html>`;

const FRAME = `<!doctype html><html><head><title>Shop</title></head><body>
  <button id="buy" onclick="document.getElementById('status').textContent = 'bought'">Buy</button>
  <p id="status">in cart</p>
  <a id="frame-help" href="/help?from=shop" target="_blank">Shop help</a>
  <iframe id="inner" title="Card" src="/inner" width="300" height="120"></iframe>
</body></html>`;

const INNER = `<!doctype html><html><head><title>Card</title></head><body>
  <p id="deep">Deep inside</p>
  <input id="card" aria-label="Card number"
    oninput="document.getElementById('echo').textContent = this.value.length + ' digits'">
  <p id="echo">0 digits</p>
</body></html>`;

const PAGES: Record<string, string> = { '/help': HELP, '/popup': POPUP, '/frame': FRAME, '/inner': INNER };

export interface TabsSite {
  url: string;
  close(): Promise<void>;
}

export async function startTabsSite(): Promise<TabsSite> {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    res.end(PAGES[path] ?? HOME);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every tab and frame step passing against the site; later steps act on the current page. */
export function passingTabSteps(): StepNode[] {
  return [
    step('Open', { name: 'goto', url: '/' }),
    step('Open help', { name: 'waitForPopup', selector: '#help' }),
    step('Help is current', { name: 'assertTitle', value: 'Help' }),
    step('Help heading', { name: 'assertText', selector: 'h1', value: 'Help centre', exact: true }),
    step('Back to home', { name: 'switchTab', index: 0 }),
    step('Home is current', { name: 'assertTitle', value: 'Home' }),
    step('Open chat', { name: 'waitForPopup', selector: '#open-popup' }),
    step('Chat is current', { name: 'assertUrl', value: '/popup' }),
    step('Write', { name: 'fill', selector: '#reply', value: '{{vars.reply}}' }),
    step('Send', { name: 'click', selector: '#send' }),
    step('Home by title', { name: 'switchTab', title: 'Home' }),
    step('Reply arrived', { name: 'assertText', selector: '#reply-out', value: 'Hi from chat', exact: true }),
    step('Help by URL', { name: 'switchTab', url: '/help' }),
    step('Close help', { name: 'closeTab' }),
    // Home and chat remain: the last one opened is current.
    step('Chat after close', { name: 'assertTitle', value: 'Chat' }),
    step('Close home by index', { name: 'closeTab', index: 0 }),
    step('Still chat', { name: 'assertTitle', value: 'Chat' }),
    step('Back home', { name: 'goto', url: '/' }),
    step('Buy in frame', { name: 'click', selector: '#buy', frame: '#shop' }),
    step('Bought', {
      name: 'assertText',
      selector: '#status',
      value: 'bought',
      frame: 'iframe[title="Shop"]',
    }),
    step('Deep text', {
      name: 'assertText',
      selector: '#deep',
      value: 'Deep inside',
      frame: ['#shop', '#inner'],
    }),
    step('Card number', { name: 'fill', selector: '#card', value: '4242', frame: ['#shop', '#inner'] }),
    step('Four digits', {
      name: 'assertText',
      selector: '#echo',
      value: '4 digits',
      frame: ['#shop', '#inner'],
    }),
    step('Nothing on home', { name: 'assertCount', selector: '#deep', value: 0 }),
    step('Shop help', { name: 'waitForPopup', selector: '#frame-help', frame: '#shop' }),
    step('From the shop', { name: 'assertUrl', value: 'from=shop' }),
    // The chat window now shows home (`/`): a URL ending in the port and a slash.
    step('Home by pattern', { name: 'switchTab', url: '/:\\d+\\/$/' }),
    step('Home title', { name: 'assertTitle', value: 'Home' }),
    step('Help by title pattern', { name: 'switchTab', title: '/^hel/i' }),
    step('Help again', { name: 'assertText', selector: 'h1', value: 'Help centre' }),
  ];
}
