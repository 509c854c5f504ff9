import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * TodoMVC as Playwright's demo (demo.playwright.dev/todomvc) behaves: todos in
 * `localStorage['react-todos']`, hash routes for the filters, double-click to edit, Enter or blur
 * to save (trimmed, empty removes), Escape to cancel. Served on loopback in its correct version
 * and in deliberately broken ones (mutants), each a single behaviour a user would notice.
 */
export const MUTANTS = {
  /** Nothing reaches localStorage. */
  forgetful: 'never writes the todos to localStorage',
  /** An edit keeps its surrounding spaces. */
  untrimmed: 'does not trim an edited title',
  /** Escape saves the edit instead of cancelling it. */
  escapeSaves: 'saves an edit on Escape',
  /** The "Mark all as complete" box keeps its state when single todos change. */
  staleToggleAll: 'does not update "Mark all as complete" when single todos change',
  /** The Clear completed button shows with nothing completed. */
  clearAlwaysShown: 'shows "Clear completed" with nothing completed',
  /** The filters replace the history entry, so Back leaves the app's states. */
  filterReplacesHistory: 'filters replace the history entry instead of adding one',
} as const;
export type Variant = 'correct' | keyof typeof MUTANTS;

const page = (variant: Variant) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>React • TodoMVC</title>
<style>
  .hidden, .todo-list li.editing .view, .todo-list li:not(.editing) .edit { display: none; }
  .todo-list li.completed label { text-decoration: line-through; }
  .todo-list label { display: block; padding: 12px; }
  .filters a.selected { font-weight: bold; }
</style></head>
<body>
<section class="todoapp">
  <header class="header"><h1>todos</h1>
    <input class="new-todo" placeholder="What needs to be done?" autofocus>
  </header>
  <section class="main">
    <input id="toggle-all" class="toggle-all" type="checkbox">
    <label for="toggle-all">Mark all as complete</label>
    <ul class="todo-list"></ul>
  </section>
  <footer class="footer">
    <span class="todo-count" data-testid="todo-count"></span>
    <ul class="filters">
      <li><a href="#/">All</a></li>
      <li><a href="#/active">Active</a></li>
      <li><a href="#/completed">Completed</a></li>
    </ul>
    <button class="clear-completed">Clear completed</button>
  </footer>
</section>
<script>
const variant = ${JSON.stringify(variant)};
const KEY = 'react-todos';
let todos = JSON.parse(localStorage.getItem(KEY) || '[]');
let editing = null;
let fromSingleTodo = false;
const save = () => { if (variant !== 'forgetful') localStorage.setItem(KEY, JSON.stringify(todos)); };
const filter = () => (location.hash.replace(/^#\\/?/, '') || 'all');
const $ = (selector) => document.querySelector(selector);
const escape = (text) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

function render() {
  const shown = todos.filter((todo) => filter() === 'all' || (filter() === 'active') !== todo.completed);
  $('.todo-list').innerHTML = shown.map((todo) =>
    '<li data-testid="todo-item" data-id="' + todo.id + '" class="' +
      [todo.completed ? 'completed' : '', editing === todo.id ? 'editing' : ''].filter(Boolean).join(' ') + '">' +
    '<div class="view"><input class="toggle" type="checkbox"' + (todo.completed ? ' checked' : '') + '>' +
    '<label data-testid="todo-title">' + escape(todo.title) + '</label><button class="destroy" aria-label="Delete"></button></div>' +
    '<input class="edit" aria-label="Edit" value="' + escape(todo.title) + '"></li>').join('');
  const left = todos.filter((todo) => !todo.completed).length;
  const completed = todos.length - left;
  $('.todo-count').innerHTML = '<strong>' + left + '</strong> ' + (left === 1 ? 'item' : 'items') + ' left';
  $('.main').classList.toggle('hidden', todos.length === 0);
  $('.footer').classList.toggle('hidden', todos.length === 0);
  if (variant !== 'staleToggleAll' || !fromSingleTodo) $('.toggle-all').checked = todos.length > 0 && completed === todos.length;
  fromSingleTodo = false;
  $('.clear-completed').classList.toggle('hidden', completed === 0 && variant !== 'clearAlwaysShown');
  for (const link of document.querySelectorAll('.filters a'))
    link.className = link.getAttribute('href').replace(/^#\\/?/, '') === (filter() === 'all' ? '' : filter()) ? 'selected' : '';
  const edit = editing && document.querySelector('li.editing .edit');
  if (edit) { edit.focus(); edit.setSelectionRange(edit.value.length, edit.value.length); }
}
function commit(li, input) {
  if (editing === null) return;
  const id = editing;
  editing = null;
  const title = variant === 'untrimmed' ? input.value : input.value.trim();
  todos = title ? todos.map((todo) => (todo.id === id ? { ...todo, title } : todo)) : todos.filter((todo) => todo.id !== id);
  save();
  render();
}
$('.new-todo').addEventListener('keydown', (event) => {
  const title = event.target.value.trim();
  if (event.key !== 'Enter' || !title) return;
  todos = [...todos, { id: String(Date.now()) + Math.random(), title, completed: false }];
  event.target.value = '';
  save();
  render();
});
$('.toggle-all').addEventListener('change', (event) => {
  todos = todos.map((todo) => ({ ...todo, completed: event.target.checked }));
  save();
  render();
});
$('.clear-completed').addEventListener('click', () => {
  todos = todos.filter((todo) => !todo.completed);
  save();
  render();
});
$('.todo-list').addEventListener('change', (event) => {
  if (!event.target.matches('.toggle')) return;
  const id = event.target.closest('li').dataset.id;
  todos = todos.map((todo) => (todo.id === id ? { ...todo, completed: event.target.checked } : todo));
  fromSingleTodo = true;
  save();
  render();
});
$('.todo-list').addEventListener('click', (event) => {
  if (!event.target.matches('.destroy')) return;
  const id = event.target.closest('li').dataset.id;
  todos = todos.filter((todo) => todo.id !== id);
  save();
  render();
});
$('.todo-list').addEventListener('dblclick', (event) => {
  const li = event.target.closest('li');
  if (!li || !event.target.closest('.view')) return;
  editing = li.dataset.id;
  render();
});
$('.todo-list').addEventListener('keydown', (event) => {
  if (!event.target.matches('.edit')) return;
  if (event.key === 'Enter') commit(event.target.closest('li'), event.target);
  if (event.key === 'Escape') {
    if (variant === 'escapeSaves') return commit(event.target.closest('li'), event.target);
    editing = null;
    render();
  }
});
// Blur does not bubble: caught on the way down, like React's onBlur of the demo.
$('.todo-list').addEventListener('blur', (event) => {
  if (event.target.matches('.edit')) commit(event.target.closest('li'), event.target);
}, true);
if (variant === 'filterReplacesHistory')
  document.querySelector('.filters').addEventListener('click', (event) => {
    const link = event.target.closest('a');
    if (!link) return;
    event.preventDefault();
    location.replace(link.getAttribute('href'));
  });
window.addEventListener('hashchange', render);
render();
</script>
</body></html>`;

export interface TodoApp {
  /** The base URL of a variant: `<origin>/<variant>/`. */
  url(variant: Variant): string;
  close(): Promise<void>;
}

/** One server for every variant, each under its own path (one origin: separate localStorage is not needed, each test's context is fresh). */
export async function startTodoApp(): Promise<TodoApp> {
  const server = http.createServer((request, response) => {
    const variant = (request.url ?? '/').split('/')[1] as Variant;
    if (variant !== 'correct' && !(variant in MUTANTS)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page(variant));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (variant) => `${origin}/${variant}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
