import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StepNode } from '@stepdeck/contract';
import { step } from './fixtures.ts';

/**
 * A small todo app on loopback for the page-state, history and page-script steps: todos kept
 * in localStorage, a checkbox that enables Save, a field that reports blur, an element with
 * classes, attributes and a colour, a custom event, drag and drop, a key counter and a long page.
 */
const TODOS = `<!doctype html>
<html><head><title>Todos</title></head>
<body>
  <input id="new" placeholder="What needs to be done?">
  <ul id="list"></ul>
  <label><input type="checkbox" id="agree"> Agree</label>
  <button id="save" disabled>Save</button>
  <input id="email"><p id="email-state">untouched</p>
  <div id="box" class="card active" data-state="open" style="color: rgb(255, 0, 0)">Box</div>
  <p id="custom">no event</p>
  <div id="drag" draggable="true" style="width:80px;height:30px">Drag me</div>
  <div id="drop" style="width:120px;height:60px;border:1px solid">Drop here</div>
  <input id="typed"><p id="keys">0</p>
  <a id="to-second" href="/second">Second</a>
  <div style="height:3000px"></div>
  <p id="footer">Footer</p>
  <script>
    const load = () => JSON.parse(localStorage.getItem('todos') || '[]');
    const render = () => {
      document.getElementById('list').innerHTML = load()
        .map((todo) => '<li class="todo">' + todo + '</li>').join('');
    };
    document.getElementById('new').addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || !event.target.value) return;
      localStorage.setItem('todos', JSON.stringify([...load(), event.target.value]));
      event.target.value = '';
      render();
    });
    document.getElementById('agree').addEventListener('change', (event) => {
      document.getElementById('save').disabled = !event.target.checked;
    });
    document.getElementById('email').addEventListener('blur', () => {
      document.getElementById('email-state').textContent = 'touched';
    });
    document.getElementById('box').addEventListener('ping', (event) => {
      document.getElementById('custom').textContent = 'ping ' + (event.detail ?? '');
    });
    document.getElementById('drag').addEventListener('dragstart', (event) => {
      event.dataTransfer.setData('text/plain', 'drag');
    });
    document.getElementById('drop').addEventListener('dragover', (event) => event.preventDefault());
    document.getElementById('drop').addEventListener('drop', (event) => {
      event.preventDefault();
      document.getElementById('drop').textContent = 'dropped';
    });
    let keys = 0;
    document.getElementById('typed').addEventListener('keydown', () => {
      keys += 1;
      document.getElementById('keys').textContent = String(keys);
    });
    render();
  </script>
</body></html>`;

const SECOND = `<!doctype html><html><head><title>Second</title></head><body><h1>Second page</h1></body></html>`;

export interface VocabularySite {
  url: string;
  close(): Promise<void>;
}

export async function startVocabularySite(): Promise<VocabularySite> {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(req.url === '/second' ? SECOND : TODOS);
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

/** The secret the passing steps read inside a page script (`STEPDECK_SECRET_TODO_TOKEN`). */
export const TODO_TOKEN = 'todo-token-5e1f0a';

/**
 * Every navigation, element-state and page-script step passing against the todo app; the test
 * holds `vars: { item: 'Buy milk' }` and the secret `TODO_TOKEN`.
 */
export function passingVocabularySteps(): StepNode[] {
  return [
    step('Open', { name: 'goto', url: '/' }),
    step('Start empty', { name: 'evaluate', script: 'localStorage.clear()' }),
    step('Reload', { name: 'reload' }),
    step('Type first', { name: 'type', selector: '#new', value: '{{vars.item}}' }),
    step('Add first', { name: 'press', selector: '#new', key: 'Enter' }),
    step('Fill second', { name: 'fill', selector: '#new', value: 'Walk dog' }),
    step('Add second', { name: 'press', selector: '#new', key: 'Enter' }),
    step('Both, exactly', {
      name: 'assertTexts',
      selector: 'li.todo',
      values: ['Buy milk', 'Walk dog'],
      exact: true,
    }),
    step('Both, containing', { name: 'assertTexts', selector: 'li.todo', values: ['milk', 'dog'] }),
    step('Not reversed', {
      name: 'assertTexts',
      selector: 'li.todo',
      values: ['Walk dog', 'Buy milk'],
      exact: true,
      not: true,
      timeout: 500,
    }),
    step('Count stored', {
      name: 'evaluate',
      script: "JSON.parse(localStorage.getItem('todos')).length",
      variable: 'stored',
    }),
    step('Two stored', {
      name: 'assertScript',
      script: "localStorage.getItem('todos')",
      equals: '["Buy milk","Walk dog"]',
    }),
    step('Stored count kept', { name: 'assertScript', script: '{{vars.stored}} + 0', equals: 2 }),
    step('First stored', {
      name: 'assertScript',
      script:
        "const todos = JSON.parse(localStorage.getItem('todos'));\nreturn todos[0] === '{{vars.item}}';",
    }),
    step('Title pattern', { name: 'assertScript', script: '() => document.title', matches: '^Tod' }),
    step('Nothing missing', { name: 'assertScript', script: "localStorage.getItem('missing')", not: true }),
    step('Secret stays in the page', {
      name: 'assertScript',
      script: "'{{secrets.TODO_TOKEN}}'.startsWith('todo-token-')",
      timeout: 2_000,
    }),
    step('Type keys', { name: 'type', selector: '#typed', value: 'abc', delay: 10 }),
    step('Three keys', { name: 'assertText', selector: '#keys', value: '3', exact: true }),
    step('Unchecked', { name: 'assertChecked', selector: '#agree', checked: false }),
    step('Save disabled', { name: 'assertDisabled', selector: '#save' }),
    step('Agree', { name: 'check', selector: '#agree' }),
    step('Checked', { name: 'assertChecked', selector: '#agree' }),
    step('Save enabled', { name: 'assertEnabled', selector: '#save' }),
    step('Save not disabled', { name: 'assertDisabled', selector: '#save', not: true }),
    step('Focus email', { name: 'focus', selector: '#email' }),
    step('Blur email', { name: 'blur', selector: '#email' }),
    step('Touched', { name: 'assertText', selector: '#email-state', value: 'touched', exact: true }),
    step('Has active', { name: 'assertClass', selector: '#box', value: 'active' }),
    step('Classes exactly', { name: 'assertClass', selector: '#box', value: 'card active', exact: true }),
    step('Not done', { name: 'assertClass', selector: '#box', value: 'done', not: true }),
    step('State open', { name: 'assertAttribute', selector: '#box', attribute: 'data-state', value: 'open' }),
    step('State pattern', {
      name: 'assertAttribute',
      selector: '#box',
      attribute: 'data-state',
      value: '^op',
      regex: true,
    }),
    step('Not hidden', { name: 'assertAttribute', selector: '#box', attribute: 'hidden', not: true }),
    step('Red', { name: 'assertCss', selector: '#box', property: 'color', value: 'rgb(255, 0, 0)' }),
    step('Ping', { name: 'dispatchEvent', selector: '#box', event: 'ping', eventInit: { bubbles: true } }),
    step('Pinged', { name: 'assertText', selector: '#custom', value: 'ping' }),
    step('Drag', { name: 'dragTo', selector: '#drag', target: '#drop' }),
    step('Dropped', { name: 'assertText', selector: '#drop', value: 'dropped', exact: true }),
    step('To footer', { name: 'scrollIntoView', selector: '#footer' }),
    step('Footer in view', {
      name: 'assertScript',
      script: "document.getElementById('footer').getBoundingClientRect().top < innerHeight",
    }),
    step('Follow', { name: 'click', selector: '#to-second' }),
    step('On second', { name: 'assertTitle', value: 'Second' }),
    step('Back', { name: 'goBack' }),
    step('Todos again', { name: 'assertTitle', value: 'Todos' }),
    step('Forward', { name: 'goForward' }),
    step('Second again', { name: 'assertUrl', value: '/second' }),
    step('Back home', { name: 'goBack' }),
    step('Reload again', { name: 'reload' }),
    step('Kept after reload', {
      name: 'assertTexts',
      selector: 'li.todo',
      values: ['Buy milk', 'Walk dog'],
      exact: true,
    }),
  ];
}
