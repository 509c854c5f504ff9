import type { ReactNode } from 'react';
import { maxResourceNameLength } from '../../lib/limits.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import './Field.css';

/**
 * A labelled form control of the administration forms: the label wraps the control (so it
 * names it without ids), with an optional hint under it.
 */
export function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the children, inside the label
    <label>
      {label} {children}
      {hint && <small className="muted field-hint">{hint}</small>}
    </label>
  );
}

/** A required name of an administration resource, cut at the service's limit as typed. */
export function NameField(props: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <Field label={props.label}>
      <input
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        required
        maxLength={maxResourceNameLength}
      />
    </Field>
  );
}

/** The errors of a page's actions, each shown (as the service worded it) only when there is one. */
export function Problems({ errors }: { errors: ReadonlyArray<unknown> }) {
  return (
    <>
      {errors.map((error, index) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed per page; position is identity
        error ? <ErrorMessage key={index} error={error} /> : null,
      )}
    </>
  );
}
