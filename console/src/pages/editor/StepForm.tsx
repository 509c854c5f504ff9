import type { StepCondition } from '@stepdeck/contract';
import { useId } from 'react';
import { actionErrors, actionFields } from '../../lib/action-fields.ts';
import { maxStepNameLength } from '../../lib/limits.ts';
import { type EditorStep, isGroup } from '../../lib/step-tree-edit.ts';
import { ActionFieldInput } from './ActionFieldInput.tsx';

/** The selected step's form: name, the action's fields (from the contract), condition. */
export function StepForm(props: {
  step: EditorStep;
  serverError: { field: string; text: string } | undefined;
  suggestions: string[];
  onChange(change: Partial<EditorStep>): void;
}) {
  const { step } = props;
  const id = useId();
  const suggestionsId = `${id}-templates`;
  const errors = actionErrors(step.action);
  if (props.serverError) errors[props.serverError.field] = props.serverError.text;
  const setField = (key: string, value: unknown) => {
    const action = { ...step.action };
    if (value === undefined) delete action[key];
    else action[key] = value;
    props.onChange({ action });
  };
  const condition = step.condition;
  const setCondition = (type: string) => {
    const next: StepCondition | null =
      type === 'skip' || type === 'alwaysRun'
        ? { type }
        : type === 'if'
          ? { type: 'if', variable: '', equals: '' }
          : null;
    props.onChange({ condition: next });
  };
  // Fields whose message has no field of its own (e.g. the action's name) show above the form.
  const fields = actionFields(String(step.action.name));
  const general = Object.entries(errors).filter(([key]) => !fields.some((field) => field.key === key));
  return (
    <div className="step-form">
      <datalist id={suggestionsId}>
        {props.suggestions.map((suggestion) => (
          <option key={suggestion} value={suggestion} />
        ))}
      </datalist>
      <div className="field">
        <label htmlFor={`${id}-name`}>Step name</label>
        <input
          id={`${id}-name`}
          value={step.name}
          maxLength={maxStepNameLength}
          onChange={(event) => props.onChange({ name: event.target.value })}
        />
      </div>
      <p className="muted">
        Action: <strong>{String(step.action.name)}</strong>
      </p>
      {general.map(([key, message]) => (
        <p key={key} className="field-error" role="alert">
          {key ? `${key}: ` : ''}
          {message}
        </p>
      ))}
      {fields.map((field) => (
        <ActionFieldInput
          key={`${step.key}-${field.key}`}
          field={field}
          value={step.action[field.key]}
          error={errors[field.key]}
          suggestionsId={suggestionsId}
          onChange={(value) => setField(field.key, value)}
        />
      ))}
      <div className="field">
        <label htmlFor={`${id}-condition`}>Condition</label>
        <select
          id={`${id}-condition`}
          value={condition?.type ?? ''}
          onChange={(event) => setCondition(event.target.value)}
        >
          <option value="">none</option>
          <option value="skip">skip</option>
          <option value="alwaysRun">always run</option>
          <option value="if">only if a variable equals</option>
        </select>
      </div>
      {condition?.type === 'if' ? (
        <>
          <div className="field">
            <label htmlFor={`${id}-variable`}>Condition variable</label>
            <input
              id={`${id}-variable`}
              value={condition.variable}
              onChange={(event) =>
                props.onChange({ condition: { ...condition, variable: event.target.value } })
              }
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-equals`}>Condition equals</label>
            <input
              id={`${id}-equals`}
              value={String(condition.equals ?? '')}
              onChange={(event) =>
                props.onChange({ condition: { ...condition, equals: event.target.value } })
              }
            />
          </div>
        </>
      ) : null}
      {isGroup(step) && !step.stepId ? (
        <div className="field checkbox">
          <label>
            <input
              type="checkbox"
              checked={step.shared}
              onChange={(event) => props.onChange({ shared: event.target.checked })}
            />{' '}
            Save this group as a shared step
          </label>
        </div>
      ) : null}
    </div>
  );
}
