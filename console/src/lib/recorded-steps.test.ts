import type { RecordedStep } from '@stepdeck/contract';
import { describe, expect, it } from 'vitest';
import { nextRecording, placeRecorded, type Recording } from './recorded-steps.ts';
import { type EditorStep, removeStep } from './step-tree-edit.ts';

const step = (name: string, action = 'click', children: EditorStep[] = []): EditorStep => ({
  key: name,
  name,
  action: action === 'group' ? { name: 'group' } : { name: action, selector: `#${name}` },
  condition: null,
  shared: false,
  children,
});
const names = (steps: EditorStep[]): unknown[] =>
  steps.map((s) => (s.children.length ? [s.name, names(s.children)] : s.name));
const fill = (value: string): RecordedStep => ({
  name: `Fill #q`,
  action: { name: 'fill', selector: '#q', value },
});
const click = (selector: string): RecordedStep => ({
  name: `Click ${selector}`,
  action: { name: 'click', selector },
});

/** Applies events one after the other, as the editor does. */
function record(steps: EditorStep[], anchor: string | undefined, events: Array<[RecordedStep[], number]>) {
  let recording: Recording = { anchor, keys: [] };
  let counter = 0;
  for (const [recorded, replaces] of events) {
    const event = { steps: recorded, replaces };
    const after = nextRecording(recording, event, () => `r${++counter}`);
    steps = placeRecorded(steps, recording, after, event);
    recording = after;
  }
  return { steps, recording };
}

describe('recorded steps placed in the editor', () => {
  it('adds steps after the chosen one, in order, across events', () => {
    const { steps, recording } = record([step('a'), step('b')], 'a', [
      [[click('#x'), click('#y')], 0],
      [[click('#z')], 0],
    ]);
    expect(names(steps)).toEqual(['a', 'Click #x', 'Click #y', 'Click #z', 'b']);
    expect(recording.keys).toEqual(['r1', 'r2', 'r3']);
  });

  it('changes a replaced step in place and keeps its key', () => {
    const { steps, recording } = record([step('a')], undefined, [
      [[click('#q'), fill('A')], 0],
      [[fill('Ada')], 1],
      [[click('#go')], 0],
    ]);
    expect(steps.map((s) => s.action)).toEqual([
      { name: 'click', selector: '#a' },
      { name: 'click', selector: '#q' },
      { name: 'fill', selector: '#q', value: 'Ada' },
      { name: 'click', selector: '#go' },
    ]);
    expect(recording.keys).toEqual(['r1', 'r2', 'r3']);
  });

  it('removes replaced steps no longer recorded and adds the extra ones after the last kept', () => {
    const { steps } = record([], undefined, [
      [[click('#a'), click('#b'), click('#c')], 0],
      [[click('#B')], 2],
      [[click('#d'), click('#e')], 0],
    ]);
    expect(names(steps)).toEqual(['Click #a', 'Click #B', 'Click #d', 'Click #e']);
  });

  it('goes into a chosen group, and puts back a replaced step the user removed', () => {
    const recording: Recording = { anchor: 'g', keys: [] };
    const first = { steps: [click('#a'), fill('A')], replaces: 0 };
    const afterFirst = nextRecording(
      recording,
      first,
      (() => {
        let n = 0;
        return () => `k${++n}`;
      })(),
    );
    let steps = placeRecorded([step('g', 'group', [step('in')]), step('z')], recording, afterFirst, first);
    expect(names(steps)).toEqual([['g', ['in', 'Click #a', 'Fill #q']], 'z']);
    steps = removeStep(steps, 'k2');
    const second = { steps: [fill('Ada')], replaces: 1 };
    const afterSecond = nextRecording(afterFirst, second, () => 'unused');
    steps = placeRecorded(steps, afterFirst, afterSecond, second);
    expect(names(steps)).toEqual([['g', ['in', 'Click #a', 'Fill #q']], 'z']);
    expect(afterSecond.keys).toEqual(['k1', 'k2']);
  });
});
