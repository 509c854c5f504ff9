import { type FormEvent, useId, useState } from 'react';
import { Field } from '../../components/admin/Field.tsx';
import { parseCustomData } from './webhook-custom-data.ts';
import './admin.css';

export const webhookEvents = ['run.completed', 'run.failed'] as const;

export interface WebhookFields {
  url: string;
  events: string[];
  customData: Record<string, unknown> | null;
}

/** The spec's endpoint URL rules, shown under the field (the service checks them and says which failed). */
const urlRules =
  'https only, no user:password in it, and no localhost, private, loopback, link-local or carrier-grade NAT address (names are resolved).';

/**
 * Create and edit share this form: URL, events and custom data. The fields stay after a submit
 * (a refused URL can be corrected in place); the page remounts the form to empty it.
 */
export function WebhookForm({
  label,
  submitLabel,
  initial,
  onSubmit,
  onEdit,
  onCancel,
}: {
  label: string;
  submitLabel: string;
  initial?: WebhookFields;
  onSubmit: (fields: WebhookFields) => void;
  /** Any field changed: the page drops the service's answer to what the form held before. */
  onEdit?: () => void;
  onCancel?: () => void;
}) {
  const noEventId = useId();
  const [url, setUrl] = useState(initial?.url ?? '');
  const [chosen, setChosen] = useState<string[]>(initial?.events ?? [...webhookEvents]);
  const [customData, setCustomData] = useState(
    initial?.customData ? JSON.stringify(initial.customData, null, 2) : '',
  );
  const [problem, setProblem] = useState<string | undefined>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const read = parseCustomData(customData);
    if ('problem' in read) {
      setProblem(read.problem);
      return;
    }
    setProblem(undefined);
    onSubmit({ url, events: chosen, customData: read.data });
  };
  // Errors speak of what the form holds: a change makes both its own and the service's stale.
  const edited = () => {
    setProblem(undefined);
    onEdit?.();
  };
  return (
    <>
      <form className="admin-form" onSubmit={submit} onChange={edited} aria-label={label}>
        <Field label="Endpoint URL (https)" hint={urlRules}>
          <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required />
        </Field>
        <fieldset>
          <legend>Events</legend>
          {webhookEvents.map((name) => (
            <label key={name}>
              <input
                type="checkbox"
                checked={chosen.includes(name)}
                onChange={(event) =>
                  setChosen(event.target.checked ? [...chosen, name] : chosen.filter((item) => item !== name))
                }
              />{' '}
              {name}
            </label>
          ))}
        </fieldset>
        <Field label="Custom data (JSON, up to 4 KB)">
          <textarea rows={3} value={customData} onChange={(event) => setCustomData(event.target.value)} />
        </Field>
        {chosen.length === 0 && (
          <p id={noEventId} className="muted">
            Choose at least one event.
          </p>
        )}
        <button
          type="submit"
          disabled={chosen.length === 0}
          aria-describedby={chosen.length === 0 ? noEventId : undefined}
        >
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </form>
      {problem && (
        <div role="alert" className="error-box">
          {problem}
        </div>
      )}
    </>
  );
}
