import './TagPicker.css';

/**
 * Tags as a labelled list of checkboxes: every tag visible with its state, chosen with a click
 * or Space (a multi-select needed Ctrl-click and showed nothing while the tags loaded).
 */
export function TagPicker(props: {
  legend: string;
  tags: ReadonlyArray<{ id: string; name: string }>;
  chosen: readonly string[];
  onChange(tagIds: string[]): void;
  /** While the tags load: said instead of an empty box. */
  loading?: boolean;
}) {
  const toggle = (id: string, on: boolean) =>
    props.onChange(on ? [...props.chosen, id] : props.chosen.filter((item) => item !== id));
  return (
    <fieldset className="tag-picker">
      <legend>{props.legend}</legend>
      {props.tags.length === 0 ? (
        <p className="muted">
          {props.loading
            ? 'Loading tags…'
            : 'No tags yet: an admin creates them under Administration › Tags.'}
        </p>
      ) : (
        <ul>
          {props.tags.map((tag) => (
            <li key={tag.id}>
              <label>
                <input
                  type="checkbox"
                  checked={props.chosen.includes(tag.id)}
                  onChange={(event) => toggle(tag.id, event.target.checked)}
                />{' '}
                {tag.name}
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
