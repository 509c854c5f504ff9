import { type KeyboardEvent, memo } from 'react';
import type { EditorStep, StepMove } from '../../lib/step-tree-edit.ts';

/**
 * The steps as a nested, ordered list. A step is chosen with its button; with the keyboard,
 * Alt+↑/↓ moves it among its siblings and Alt+→/← nests it into the group above or out of
 * its group. Dragging a step onto another puts it just before that one.
 */
export function StepsTree(props: {
  steps: EditorStep[];
  selectedKey: string | undefined;
  invalidKeys: ReadonlySet<string>;
  onSelect(key: string): void;
  onKeyMove(key: string, direction: StepMove): void;
  onDrop(key: string, beforeKey: string): void;
  readOnly?: boolean;
}) {
  return <StepList {...props} list={props.steps} prefix="" label="Steps" />;
}

const keyMoves: Record<string, StepMove> = {
  ArrowUp: 'up',
  ArrowDown: 'down',
  ArrowRight: 'in',
  ArrowLeft: 'out',
};

type TreeProps = Parameters<typeof StepsTree>[0];

function StepList(props: TreeProps & { list: EditorStep[]; prefix: string; label: string }) {
  return (
    <ol className="steps-tree" aria-label={props.label}>
      {props.list.map((step, index) => (
        <StepItem key={step.key} {...props} step={step} number={`${props.prefix}${index + 1}`} />
      ))}
    </ol>
  );
}

/**
 * One step and its children. Memoized: typing into one step's form rebuilds only the path to
 * that step (the other step objects keep their identity), so a 300-step tree re-renders a few
 * items per keystroke, not all of them. The editor passes stable callbacks and sets for this.
 */
const StepItem = memo(function StepItem(props: TreeProps & { step: EditorStep; number: string }) {
  const { step, number } = props;
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const move = keyMoves[event.key];
    if (!event.altKey || !move || props.readOnly) return;
    event.preventDefault();
    props.onKeyMove(step.key, move);
  };
  return (
    <li
      draggable={!props.readOnly}
      onDragStart={(event) => event.dataTransfer.setData('text/x-step', step.key)}
      onDragOver={(event) => event.preventDefault()}
      onDrop={(event) => {
        event.preventDefault();
        event.stopPropagation();
        const dragged = event.dataTransfer.getData('text/x-step');
        if (dragged && dragged !== step.key) props.onDrop(dragged, step.key);
      }}
    >
      <button
        type="button"
        className={`step-button${props.invalidKeys.has(step.key) ? ' invalid' : ''}`}
        aria-current={props.selectedKey === step.key ? 'true' : undefined}
        onClick={() => props.onSelect(step.key)}
        onKeyDown={onKeyDown}
        data-step-key={step.key}
      >
        {number}. {step.name || String(step.action.name)}{' '}
        <span className="muted">
          {String(step.action.name)}
          {step.shared ? ', shared' : ''}
          {step.condition ? `, ${step.condition.type}` : ''}
          {props.invalidKeys.has(step.key) ? ', has errors' : ''}
        </span>
      </button>
      {step.children.length > 0 ? (
        <StepList
          {...props}
          list={step.children}
          prefix={`${number}.`}
          label={`Steps of ${step.name || number}`}
        />
      ) : null}
    </li>
  );
});
