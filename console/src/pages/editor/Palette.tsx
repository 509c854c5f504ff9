import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useId, useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import { paletteGroups } from '../../lib/action-fields.ts';

/** The shared step chosen for managing, and what its dialog reports back. */
export interface ManagedSharedStep {
  step: { id: string; name: string };
  onClose(): void;
  onDeleted(): void;
}

/** Adds a step: any action of the vocabulary, grouped by kind, or a shared step by reference. */
export function Palette(props: {
  scope: ProjectScope;
  onAdd(actionName: string): void;
  onAddShared(step: { id: string; name: string }): void;
  /**
   * The manage dialog of a shared step, drawn by the editor that owns it; absent inside the
   * manage dialog itself (no dialog in a dialog), which hides the "Manage" button.
   */
  manageDialog?: (managed: ManagedSharedStep) => ReactNode;
  /** Why no step can be added where one would go now: the add buttons wait, saying so. */
  refusal?: string | undefined;
}) {
  const id = useId();
  const [sharedId, setSharedId] = useState('');
  const [managing, setManaging] = useState<{ id: string; name: string }>();
  const shared = useQuery({
    queryKey: ['shared-steps', props.scope.projectId, props.scope.branchId],
    queryFn: () => authoringApi.sharedSteps(props.scope, ''),
  });
  const options = shared.data?.data ?? [];
  const refusalId = props.refusal ? `${id}-refusal` : undefined;
  return (
    <section className="palette" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Add a step</h2>
      {props.refusal ? (
        <p id={`${id}-refusal`} className="notice" role="note">
          {props.refusal}
        </p>
      ) : null}
      {paletteGroups.map((group) => (
        <fieldset key={group.label}>
          <legend>{group.label}</legend>
          {group.actions.map((action) => (
            <button
              key={action}
              type="button"
              aria-label={`Add ${action}`}
              disabled={props.refusal !== undefined}
              aria-describedby={refusalId}
              onClick={() => props.onAdd(action)}
            >
              {action}
            </button>
          ))}
        </fieldset>
      ))}
      <fieldset>
        <legend>Shared steps</legend>
        <label htmlFor={`${id}-shared`}>Shared step</label>{' '}
        <select id={`${id}-shared`} value={sharedId} onChange={(event) => setSharedId(event.target.value)}>
          <option value="">{options.length ? 'choose…' : 'none yet'}</option>
          {options.map((step) => (
            <option key={step.id} value={step.id}>
              {step.name ?? step.id}
            </option>
          ))}
        </select>{' '}
        <button
          type="button"
          disabled={!sharedId || props.refusal !== undefined}
          aria-describedby={refusalId}
          onClick={() => {
            const step = options.find((option) => option.id === sharedId);
            if (step) props.onAddShared({ id: step.id, name: step.name ?? '' });
          }}
        >
          Insert shared step
        </button>{' '}
        {props.manageDialog === undefined ? null : (
          <button
            type="button"
            disabled={!sharedId}
            onClick={() => {
              const step = options.find((option) => option.id === sharedId);
              if (step) setManaging({ id: step.id, name: step.name ?? '' });
            }}
          >
            Manage shared step…
          </button>
        )}
      </fieldset>
      {managing && props.manageDialog
        ? props.manageDialog({
            step: managing,
            onClose: () => setManaging(undefined),
            onDeleted: () => setSharedId(''),
          })
        : null}
    </section>
  );
}
