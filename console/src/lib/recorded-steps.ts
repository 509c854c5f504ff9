import type { RecordedStep } from '@stepdeck/contract';
import { type EditorStep, findStep, insertStep, removeStep, updateStep } from './step-tree-edit.ts';

/**
 * Steps a live browser records, placed in the test being edited as they come. A recording's
 * steps go where a step the user adds would (after the chosen step, or into the chosen group),
 * one after the other; a `recorded` event may stand for the last few steps it sent before
 * (`replaces`: typing went on in a field), which are then changed in place.
 */
export interface Recording {
  /** The step chosen when the recording began: its first step goes after it (or into it). */
  anchor: string | undefined;
  /** The editor keys of the recording's steps so far, in order. */
  keys: string[];
}

export interface RecordedEvent {
  steps: RecordedStep[];
  replaces: number;
}

/** The recording after an event: kept keys, the replaced ones reused, new keys for the rest. */
export function nextRecording(recording: Recording, event: RecordedEvent, makeKey: () => string): Recording {
  const kept = recording.keys.slice(0, Math.max(recording.keys.length - event.replaces, 0));
  const reused = recording.keys.slice(kept.length, kept.length + event.steps.length);
  const fresh = event.steps.slice(reused.length).map(() => makeKey());
  return { anchor: recording.anchor, keys: [...kept, ...reused, ...fresh] };
}

/**
 * The steps with an event placed: replaced steps changed in place (or put back, when the user
 * removed them meanwhile), the ones no longer recorded removed, new ones added after the last
 * step of the recording still there (the anchor, before the first).
 */
export function placeRecorded(
  steps: EditorStep[],
  before: Recording,
  after: Recording,
  event: RecordedEvent,
): EditorStep[] {
  const kept = before.keys.length - Math.min(event.replaces, before.keys.length);
  let next = steps;
  for (const key of before.keys.slice(kept + event.steps.length)) next = removeStep(next, key);
  let previous = [...before.keys.slice(0, kept)].reverse().find((key) => findStep(next, key));
  let anchor = previous ?? before.anchor;
  if (anchor !== undefined && !findStep(next, anchor)) anchor = undefined;
  for (const [index, recorded] of event.steps.entries()) {
    const key = after.keys[kept + index] as string;
    if (findStep(next, key)) next = updateStep(next, key, { name: recorded.name, action: recorded.action });
    else
      next = insertStep(
        next,
        {
          key,
          name: recorded.name,
          action: recorded.action as Record<string, unknown>,
          condition: null,
          shared: false,
          children: [],
        },
        previous ?? anchor,
      );
    previous = key;
  }
  return next;
}
