import { type Dispatch, type SetStateAction, useRef } from 'react';
import {
  nextRecording,
  placeRecorded,
  type RecordedEvent,
  type Recording,
} from '../../lib/recorded-steps.ts';
import { type EditorStep, insertStep, newKey } from '../../lib/step-tree-edit.ts';
import type { Draft } from './editor-draft.ts';

/**
 * What the live browser adds to the test being edited: a picked element's step ("Insert as
 * step") and a recording's steps, both placed as a step the user adds (after the chosen step, or
 * into the chosen group), unsaved, the newest one chosen so the editor shows it.
 */
export function useLiveSteps(editor: {
  selectedKey: string | undefined;
  setSelectedKey(key: string): void;
  setDraft: Dispatch<SetStateAction<Draft | undefined>>;
  setDirty(dirty: boolean): void;
}) {
  const recording = useRef<Recording>({ anchor: undefined, keys: [] });
  // Events can come faster than the editor renders: each one is placed on the latest steps.
  const place = (placeIn: (steps: EditorStep[]) => EditorStep[]) => {
    editor.setDraft((current) => (current ? { ...current, steps: placeIn(current.steps) } : current));
    editor.setDirty(true);
  };
  return {
    onInsert(action: Record<string, unknown>) {
      const step: EditorStep = {
        key: newKey(),
        name: '',
        action,
        condition: null,
        shared: false,
        children: [],
      };
      const after = editor.selectedKey;
      place((steps) => insertStep(steps, step, after));
      editor.setSelectedKey(step.key);
    },
    onRecordingStart() {
      recording.current = { anchor: editor.selectedKey, keys: [] };
    },
    onRecorded(event: RecordedEvent) {
      const before = recording.current;
      const after = nextRecording(before, event, newKey);
      recording.current = after;
      place((steps) => placeRecorded(steps, before, after, event));
      const last = after.keys.at(-1);
      if (event.steps.length > 0 && last) editor.setSelectedKey(last);
    },
  };
}
