import { type Dispatch, type SetStateAction, useRef } from 'react';
import {
  nextRecording,
  placeRecorded,
  type RecordedEvent,
  type Recording,
} from '../../lib/recorded-steps.ts';
import { stepNumber, stepsUpTo } from '../../lib/replay-steps.ts';
import { type EditorStep, findStep, insertStep, newKey } from '../../lib/step-tree-edit.ts';
import type { Draft } from './editor-draft.ts';
import type { LiveReplayTarget } from './LiveBrowserPanel.tsx';

/**
 * What the live browser adds to the test being edited: a picked element's step ("Insert as
 * step") and a recording's steps, both placed as a step the user adds (after the chosen step, or
 * into the chosen group), unsaved, the newest one chosen so the editor shows it. And the other
 * way: "Replay to this step" runs the test's steps up to the chosen one in the live browser.
 */
export function useLiveSteps(editor: {
  draft?: Draft | undefined;
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
  const { draft, selectedKey } = editor;
  const chosen = draft && selectedKey ? findStep(draft.steps, selectedKey) : undefined;
  const replay: LiveReplayTarget | undefined =
    draft && selectedKey && chosen
      ? {
          name: chosen.name || String(chosen.action.name),
          build: () => ({
            steps: stepsUpTo(draft.steps, selectedKey) ?? [],
            vars: draft.vars ?? undefined,
            parameters: draft.parameters ?? undefined,
            baseURL:
              String((draft.config.use as { baseURL?: unknown } | undefined)?.baseURL ?? '') || undefined,
          }),
          numberOf: (key) => stepNumber(draft.steps, key),
        }
      : undefined;
  return {
    replay,
    // A test with steps goes on from the page they led to: no step going to it first.
    recordFromPageShown: (draft?.steps.length ?? 0) === 0,
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
