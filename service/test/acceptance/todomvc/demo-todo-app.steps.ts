import type { StepAction, StepNode } from '@stepdeck/contract';

/**
 * Playwright's TodoMVC example suite (demo-todo-app.spec.ts beside this file) written as
 * Stepdeck steps, test for test and check for check. Locators are the selectors Playwright's
 * `getBy*` build (`internal:testid=…`, `internal:role=…`), as the recorder writes them;
 * `page.waitForFunction` on localStorage is an `assertScript`; `toHaveClass([…])` on a list is
 * its count and each element's class attribute.
 */

let serial = 0;
const step = (name: string, action: StepAction, children?: StepNode[]): StepNode => ({
  id: `todo-step-${++serial}`,
  name,
  action,
  ...(children ? { children } : {}),
});

const TODO_ITEMS = ['buy some cheese', 'feed the cat', 'book a doctors appointment'] as const;
const newTodo = 'internal:attr=[placeholder="What needs to be done?"i]';
const todoTitle = 'internal:testid=[data-testid="todo-title"s]';
const todoItem = 'internal:testid=[data-testid="todo-item"s]';
const todoCount = 'internal:testid=[data-testid="todo-count"s]';
const toggleAll = 'internal:label="Mark all as complete"i';
const nth = (selector: string, n: number) => `${selector} >> nth=${n}`;
const checkbox = (selector: string) => `${selector} >> internal:role=checkbox`;
const editBox = (selector: string) => `${selector} >> internal:role=textbox[name="Edit"i]`;
const link = (name: string) => `internal:role=link[name="${name}"i]`;
const clearCompleted = 'internal:role=button[name="Clear completed"i]';
const firstToggle = '.todo-list li .toggle >> nth=0';

const open = () => step('Open the app', { name: 'goto', url: './' });
const add = (title: string) => [
  step(`Type "${title}"`, { name: 'fill', selector: newTodo, value: title }),
  step('Press Enter', { name: 'press', selector: newTodo, key: 'Enter' }),
];
const createDefaultTodos = () => step('Create the default todos', { name: 'group' }, TODO_ITEMS.flatMap(add));
const storedCount = (n: number) =>
  step(`${n} todos in localStorage`, {
    name: 'assertScript',
    script: `JSON.parse(localStorage['react-todos']).length === ${n}`,
  });
const storedCompleted = (n: number) =>
  step(`${n} completed in localStorage`, {
    name: 'assertScript',
    script: `JSON.parse(localStorage['react-todos']).filter((todo) => todo.completed).length === ${n}`,
  });
const storedTitle = (title: string) =>
  step(`"${title}" in localStorage`, {
    name: 'assertScript',
    script: `JSON.parse(localStorage['react-todos']).map((todo) => todo.title).includes(${JSON.stringify(title)})`,
  });
const texts = (selector: string, values: readonly string[]) =>
  step(`Shows ${values.join(', ')}`, { name: 'assertTexts', selector, values: [...values], exact: true });
/** `toHaveClass([…])`: as many elements, each with exactly that class attribute. */
const classes = (selector: string, values: string[]) => [
  step(`${values.length} items`, { name: 'assertCount', selector, value: values.length }),
  ...values.map((value, index) =>
    value
      ? step(`Item ${index + 1} is ${value}`, {
          name: 'assertClass',
          selector: nth(selector, index),
          value,
          exact: true,
        })
      : step(`Item ${index + 1} has no class`, {
          name: 'assertAttribute',
          selector: nth(selector, index),
          attribute: 'class',
          value: '^$',
          regex: true,
        }),
  ),
];
const hasClass = (selector: string, value: string, not = false) =>
  step(`${not ? 'Not ' : ''}${value}`, { name: 'assertClass', selector, value, exact: true, not });

export interface StepsTest {
  /** The Playwright title path: `describe › test`. */
  title: string;
  steps: StepNode[];
}

const suite: Array<
  [string, Array<[string, () => StepNode[]]>, { before?: () => StepNode[]; after?: () => StepNode[] }?]
> = [
  [
    'New Todo',
    [
      [
        'should allow me to add todo items',
        () => [
          ...add(TODO_ITEMS[0]),
          texts(todoTitle, [TODO_ITEMS[0]]),
          ...add(TODO_ITEMS[1]),
          texts(todoTitle, [TODO_ITEMS[0], TODO_ITEMS[1]]),
          storedCount(2),
        ],
      ],
      [
        'should clear text input field when an item is added',
        () => [
          ...add(TODO_ITEMS[0]),
          step('Input is empty', { name: 'assertValue', selector: newTodo, value: '' }),
          storedCount(1),
        ],
      ],
      [
        'should append new items to the bottom of the list',
        () => [
          createDefaultTodos(),
          step('"3 items left" visible', {
            name: 'assertVisible',
            selector: 'internal:text="3 items left"i',
          }),
          step('Count reads 3 items left', {
            name: 'assertText',
            selector: todoCount,
            value: '3 items left',
            exact: true,
          }),
          step('Count contains 3', { name: 'assertText', selector: todoCount, value: '3' }),
          step('Count matches 3', { name: 'assertText', selector: todoCount, value: '3' }),
          texts(todoTitle, TODO_ITEMS),
          storedCount(3),
        ],
      ],
    ],
  ],
  [
    'Mark all as completed',
    [
      [
        'should allow me to mark all items as completed',
        () => [
          step('Mark all', { name: 'check', selector: toggleAll }),
          ...classes(todoItem, ['completed', 'completed', 'completed']),
          storedCompleted(3),
        ],
      ],
      [
        'should allow me to clear the complete state of all items',
        () => [
          step('Mark all', { name: 'check', selector: toggleAll }),
          step('Unmark all', { name: 'uncheck', selector: toggleAll }),
          ...classes(todoItem, ['', '', '']),
        ],
      ],
      [
        'complete all checkbox should update state when items are completed / cleared',
        () => [
          step('Mark all', { name: 'check', selector: toggleAll }),
          step('Toggle all is checked', { name: 'assertChecked', selector: toggleAll }),
          storedCompleted(3),
          step('Uncheck the first', { name: 'uncheck', selector: checkbox(nth(todoItem, 0)) }),
          step('Toggle all is not checked', { name: 'assertChecked', selector: toggleAll, not: true }),
          step('Check the first', { name: 'check', selector: checkbox(nth(todoItem, 0)) }),
          storedCompleted(3),
          step('Toggle all is checked again', { name: 'assertChecked', selector: toggleAll }),
        ],
      ],
    ],
    { before: () => [createDefaultTodos(), storedCount(3)], after: () => [storedCount(3)] },
  ],
  [
    'Item',
    [
      [
        'should allow me to mark items as complete',
        () => [
          ...TODO_ITEMS.slice(0, 2).flatMap(add),
          step('Check the first', { name: 'check', selector: checkbox(nth(todoItem, 0)) }),
          hasClass(nth(todoItem, 0), 'completed'),
          hasClass(nth(todoItem, 1), 'completed', true),
          step('Check the second', { name: 'check', selector: checkbox(nth(todoItem, 1)) }),
          storedCompleted(2),
          hasClass(nth(todoItem, 0), 'completed'),
          hasClass(nth(todoItem, 1), 'completed'),
        ],
      ],
      [
        'should allow me to un-mark items as complete',
        () => [
          ...TODO_ITEMS.slice(0, 2).flatMap(add),
          step('Check the first', { name: 'check', selector: checkbox(nth(todoItem, 0)) }),
          hasClass(nth(todoItem, 0), 'completed'),
          hasClass(nth(todoItem, 1), 'completed', true),
          storedCompleted(1),
          step('Uncheck the first', { name: 'uncheck', selector: checkbox(nth(todoItem, 0)) }),
          hasClass(nth(todoItem, 0), 'completed', true),
          hasClass(nth(todoItem, 1), 'completed', true),
          storedCompleted(0),
        ],
      ],
      [
        'should allow me to edit an item',
        () => [
          createDefaultTodos(),
          step('Edit the second', { name: 'dblclick', selector: nth(todoItem, 1) }),
          step('Editor holds its title', {
            name: 'assertValue',
            selector: editBox(nth(todoItem, 1)),
            value: TODO_ITEMS[1],
          }),
          step('Type the new title', {
            name: 'fill',
            selector: editBox(nth(todoItem, 1)),
            value: 'buy some sausages',
          }),
          step('Press Enter', { name: 'press', selector: editBox(nth(todoItem, 1)), key: 'Enter' }),
          texts(todoItem, [TODO_ITEMS[0], 'buy some sausages', TODO_ITEMS[2]]),
          storedTitle('buy some sausages'),
        ],
      ],
    ],
  ],
  [
    'Editing',
    [
      [
        'should hide other controls when editing',
        () => [
          step('Edit the second', { name: 'dblclick', selector: nth(todoItem, 1) }),
          step('Its checkbox is hidden', {
            name: 'assertVisible',
            selector: checkbox(nth(todoItem, 1)),
            not: true,
          }),
          step('Its label is hidden', {
            name: 'assertVisible',
            selector: `${nth(todoItem, 1)} >> label >> internal:has-text="${TODO_ITEMS[1]}"i`,
            not: true,
          }),
          storedCount(3),
        ],
      ],
      [
        'should save edits on blur',
        () => [
          step('Edit the second', { name: 'dblclick', selector: nth(todoItem, 1) }),
          step('Type the new title', {
            name: 'fill',
            selector: editBox(nth(todoItem, 1)),
            value: 'buy some sausages',
          }),
          step('Blur', { name: 'dispatchEvent', selector: editBox(nth(todoItem, 1)), event: 'blur' }),
          texts(todoItem, [TODO_ITEMS[0], 'buy some sausages', TODO_ITEMS[2]]),
          storedTitle('buy some sausages'),
        ],
      ],
      [
        'should trim entered text',
        () => [
          step('Edit the second', { name: 'dblclick', selector: nth(todoItem, 1) }),
          step('Type with spaces', {
            name: 'fill',
            selector: editBox(nth(todoItem, 1)),
            value: '    buy some sausages    ',
          }),
          step('Press Enter', { name: 'press', selector: editBox(nth(todoItem, 1)), key: 'Enter' }),
          texts(todoItem, [TODO_ITEMS[0], 'buy some sausages', TODO_ITEMS[2]]),
          storedTitle('buy some sausages'),
        ],
      ],
      [
        'should remove the item if an empty text string was entered',
        () => [
          step('Edit the second', { name: 'dblclick', selector: nth(todoItem, 1) }),
          step('Empty it', { name: 'fill', selector: editBox(nth(todoItem, 1)), value: '' }),
          step('Press Enter', { name: 'press', selector: editBox(nth(todoItem, 1)), key: 'Enter' }),
          texts(todoItem, [TODO_ITEMS[0], TODO_ITEMS[2]]),
        ],
      ],
      [
        'should cancel edits on escape',
        () => [
          step('Edit the second', { name: 'dblclick', selector: nth(todoItem, 1) }),
          step('Type the new title', {
            name: 'fill',
            selector: editBox(nth(todoItem, 1)),
            value: 'buy some sausages',
          }),
          step('Press Escape', { name: 'press', selector: editBox(nth(todoItem, 1)), key: 'Escape' }),
          texts(todoItem, TODO_ITEMS),
        ],
      ],
    ],
    { before: () => [createDefaultTodos(), storedCount(3)] },
  ],
  [
    'Counter',
    [
      [
        'should display the current number of todo items',
        () => [
          ...add(TODO_ITEMS[0]),
          step('Count contains 1', { name: 'assertText', selector: todoCount, value: '1' }),
          ...add(TODO_ITEMS[1]),
          step('Count contains 2', { name: 'assertText', selector: todoCount, value: '2' }),
          storedCount(2),
        ],
      ],
    ],
  ],
  [
    'Clear completed button',
    [
      [
        'should display the correct text',
        () => [
          step('Check the first', { name: 'check', selector: firstToggle }),
          step('Clear completed is visible', { name: 'assertVisible', selector: clearCompleted }),
        ],
      ],
      [
        'should remove completed items when clicked',
        () => [
          step('Check the second', { name: 'check', selector: checkbox(nth(todoItem, 1)) }),
          step('Clear completed', { name: 'click', selector: clearCompleted }),
          step('Two left', { name: 'assertCount', selector: todoItem, value: 2 }),
          texts(todoItem, [TODO_ITEMS[0], TODO_ITEMS[2]]),
        ],
      ],
      [
        'should be hidden when there are no items that are completed',
        () => [
          step('Check the first', { name: 'check', selector: firstToggle }),
          step('Clear completed', { name: 'click', selector: clearCompleted }),
          step('Clear completed is hidden', { name: 'assertHidden', selector: clearCompleted }),
        ],
      ],
    ],
    { before: () => [createDefaultTodos()] },
  ],
  [
    'Persistence',
    [
      [
        'should persist its data',
        () => {
          const firstCheck = checkbox(nth(todoItem, 0));
          const state = () => [
            texts(todoItem, [TODO_ITEMS[0], TODO_ITEMS[1]]),
            step('First is checked', { name: 'assertChecked', selector: firstCheck }),
            ...classes(todoItem, ['completed', '']),
          ];
          return [
            ...TODO_ITEMS.slice(0, 2).flatMap(add),
            step('Check the first', { name: 'check', selector: firstCheck }),
            ...state(),
            storedCompleted(1),
            step('Reload', { name: 'reload' }),
            ...state(),
          ];
        },
      ],
    ],
  ],
  [
    'Routing',
    [
      [
        'should allow me to display active items',
        () => [
          step('Check the second', { name: 'check', selector: checkbox(nth(todoItem, 1)) }),
          storedCompleted(1),
          step('Show active', { name: 'click', selector: link('Active') }),
          step('Two shown', { name: 'assertCount', selector: todoItem, value: 2 }),
          texts(todoItem, [TODO_ITEMS[0], TODO_ITEMS[2]]),
        ],
      ],
      [
        'should respect the back button',
        () => [
          step('Check the second', { name: 'check', selector: checkbox(nth(todoItem, 1)) }),
          storedCompleted(1),
          step('Showing all items', { name: 'group' }, [
            step('Show all', { name: 'click', selector: link('All') }),
            step('Three shown', { name: 'assertCount', selector: todoItem, value: 3 }),
          ]),
          step('Showing active items', { name: 'group' }, [
            step('Show active', { name: 'click', selector: link('Active') }),
          ]),
          step('Showing completed items', { name: 'group' }, [
            step('Show completed', { name: 'click', selector: link('Completed') }),
          ]),
          step('One shown', { name: 'assertCount', selector: todoItem, value: 1 }),
          step('Back', { name: 'goBack' }),
          step('Two shown', { name: 'assertCount', selector: todoItem, value: 2 }),
          step('Back again', { name: 'goBack' }),
          step('Three shown again', { name: 'assertCount', selector: todoItem, value: 3 }),
        ],
      ],
      [
        'should allow me to display completed items',
        () => [
          step('Check the second', { name: 'check', selector: checkbox(nth(todoItem, 1)) }),
          storedCompleted(1),
          step('Show completed', { name: 'click', selector: link('Completed') }),
          step('One shown', { name: 'assertCount', selector: todoItem, value: 1 }),
        ],
      ],
      [
        'should allow me to display all items',
        () => [
          step('Check the second', { name: 'check', selector: checkbox(nth(todoItem, 1)) }),
          storedCompleted(1),
          step('Show active', { name: 'click', selector: link('Active') }),
          step('Show completed', { name: 'click', selector: link('Completed') }),
          step('Show all', { name: 'click', selector: link('All') }),
          step('Three shown', { name: 'assertCount', selector: todoItem, value: 3 }),
        ],
      ],
      [
        'should highlight the currently applied filter',
        () => [
          hasClass(link('All'), 'selected'),
          step('Show active', { name: 'click', selector: link('Active') }),
          hasClass(link('Active'), 'selected'),
          step('Show completed', { name: 'click', selector: link('Completed') }),
          hasClass(link('Completed'), 'selected'),
        ],
      ],
    ],
    { before: () => [createDefaultTodos(), storedTitle(TODO_ITEMS[0])] },
  ],
];

/** The suite's 24 tests as steps, with their describe block's before and after steps. */
export function todoStepsSuite(): StepsTest[] {
  return suite.flatMap(([describe, tests, hooks]) =>
    tests.map(([title, body]) => ({
      title: `${describe} › ${title}`,
      steps: [open(), ...(hooks?.before?.() ?? []), ...body(), ...(hooks?.after?.() ?? [])],
    })),
  );
}
