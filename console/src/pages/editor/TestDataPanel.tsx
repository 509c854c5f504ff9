import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { authoringApi } from '../../api/authoring.ts';
import { TagPicker } from '../../components/TagPicker.tsx';
import { KeyValueField } from './KeyValueField.tsx';

type JsonObject = Record<string, unknown>;

/** A test's data besides its steps: `vars` and `parameters` (JSON objects, or none) and its tags. */
export interface TestData {
  vars: JsonObject | null;
  parameters: JsonObject | null;
  tagIds: string[];
}

/**
 * Vars, parameters and tags of the test. Vars and parameters are rows of name and value; a row
 * with a problem is named on it and the save is held back (`onValidity`) until it is fixed.
 */
export function TestDataPanel(props: {
  data: TestData;
  onChange(data: Partial<TestData>): void;
  onValidity(valid: boolean): void;
}) {
  const tags = useQuery({ queryKey: ['tags'], queryFn: authoringApi.tags, staleTime: 60_000 });
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());
  const mark = (key: string, bad: boolean) => {
    const next = new Set(invalid);
    if (bad) next.add(key);
    else next.delete(key);
    setInvalid(next);
    props.onValidity(next.size === 0);
  };
  return (
    <details className="test-data">
      <summary>Vars, parameters and tags</summary>
      <KeyValueField
        legend="Vars"
        noun="var"
        hint="Used in steps as {{vars.name}}."
        value={props.data.vars}
        onChange={(vars) => props.onChange({ vars })}
        onValidity={(valid) => mark('vars', !valid)}
      />
      <KeyValueField
        legend="Parameters"
        noun="parameter"
        hint="Used in steps as {{parameters.name}}."
        value={props.data.parameters}
        onChange={(parameters) => props.onChange({ parameters })}
        onValidity={(valid) => mark('parameters', !valid)}
      />
      <TagPicker
        legend="Tags"
        tags={tags.data?.data ?? []}
        loading={tags.isPending}
        chosen={props.data.tagIds}
        onChange={(tagIds) => props.onChange({ tagIds })}
      />
    </details>
  );
}
