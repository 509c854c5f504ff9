import {
  type LivePickedLocator,
  type LiveReplayMessage,
  type LiveServerEvent,
  type LiveSession,
  liveReplayBusy,
} from '@stepdeck/contract';
import { useEffect, useId, useRef, useState } from 'react';
import { liveSessionsApi, streamUrl } from '../../api/live-sessions.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import './LiveBrowserPanel.css';

/** What "Insert as step" can add for a picked element. */
const stepKinds = [
  { name: 'click', label: 'Click' },
  { name: 'fill', label: 'Fill' },
  { name: 'assertVisible', label: 'Assert visible' },
  { name: 'assertText', label: 'Assert text' },
] as const;
type StepKind = (typeof stepKinds)[number]['name'];

type Picked = Extract<LiveServerEvent, { type: 'picked' }>;
type Recorded = Extract<LiveServerEvent, { type: 'recorded' }>;

const stepsAdded = (count: number) => (count === 1 ? '1 step added' : `${count} steps added`);

/** The chosen step of the editor, which "Replay to this step" runs the test up to. */
export interface LiveReplayTarget {
  name: string;
  /** The replay message's steps and values, read when the button is pressed. */
  build(): Omit<LiveReplayMessage, 'type'>;
  /** A step's number in the step list, by the id the replay sent it under. */
  numberOf(stepId: string): string | undefined;
}

/** Modifier bits as CDP numbers them: Alt 1, Ctrl 2, Meta 4, Shift 8. */
const modifiersOf = (event: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }) =>
  (event.altKey ? 1 : 0) | (event.ctrlKey ? 2 : 0) | (event.metaKey ? 4 : 0) | (event.shiftKey ? 8 : 0);
const buttonOf = (button: number) => (button === 1 ? 'middle' : button === 2 ? 'right' : 'left');

/**
 * A live browser for the test being edited: the page streamed from the service, the user's
 * mouse and keyboard sent back, an address bar, the element picker whose chosen locator
 * becomes a new step of the open test (unsaved, like any other added step), and recording:
 * Playwright's recorder in the page turns what the user does there into steps as they go.
 */
export function LiveBrowserPanel(props: {
  projectId: string;
  testId: string;
  initialUrl: string;
  onInsert(action: Record<string, unknown>): void;
  /** A recording began: its steps go where a step added now would. */
  onRecordingStart(): void;
  onRecorded(event: Pick<Recorded, 'steps' | 'replaces'>): void;
  /** The chosen step, when there is one: a replay runs the steps up to it. */
  replay?: LiveReplayTarget | undefined;
  /** Whether a recording begins with a step going to the page shown (a test without steps yet). */
  recordFromPageShown: boolean;
  onClose(): void;
}) {
  // The stream's handler is set up once per session: it calls the editor's latest callbacks.
  const latest = useRef(props);
  latest.current = props;
  const id = useId();
  const [session, setSession] = useState<LiveSession>();
  const [startError, setStartError] = useState<unknown>();
  const [ended, setEnded] = useState<string>();
  const [address, setAddress] = useState(props.initialUrl);
  const [title, setTitle] = useState('');
  const [frame, setFrame] = useState<string>();
  const [notice, setNotice] = useState('');
  const [picking, setPicking] = useState(false);
  const [picked, setPicked] = useState<Picked>();
  const [chosen, setChosen] = useState(0);
  const [kind, setKind] = useState<StepKind>('click');
  const [value, setValue] = useState('');
  const [recording, setRecording] = useState(false);
  const [replaying, setReplaying] = useState(false);
  const recordedCount = useRef(0);
  const socket = useRef<WebSocket | null>(null);
  const lastMove = useRef(0);
  const image = useRef<HTMLImageElement>(null);
  const screen = useRef<HTMLDivElement>(null);

  const start = async (url: string) => {
    setStartError(undefined);
    setEnded(undefined);
    setPicked(undefined);
    try {
      setSession((await liveSessionsApi.start(props.projectId, { url, testId: props.testId })).data);
    } catch (error) {
      setStartError(error);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: started once, with the panel
  useEffect(() => {
    void start(props.initialUrl);
  }, []);

  useEffect(() => {
    if (!session) return;
    const ws = new WebSocket(streamUrl(session.streamPath));
    ws.binaryType = 'blob';
    socket.current = ws;
    let current: string | undefined;
    ws.onmessage = (message) => {
      if (message.data instanceof Blob) {
        const next = URL.createObjectURL(message.data);
        setFrame(next);
        if (current) URL.revokeObjectURL(current);
        current = next;
        return;
      }
      const event = JSON.parse(String(message.data)) as LiveServerEvent;
      if (event.type === 'url') setAddress(event.url);
      else if (event.type === 'title') setTitle(event.title);
      else if (event.type === 'error') {
        setNotice(event.message);
        // Input refused while a replay runs leaves it running; any other error means it is not.
        if (event.message !== liveReplayBusy) setReplaying(false);
      } else if (event.type === 'replaying')
        setNotice(`Replaying step ${event.done + 1} of ${event.total}: ${event.step.name}`);
      else if (event.type === 'replayed') {
        setReplaying(false);
        const stop = event.stoppedAt;
        const number = stop ? (latest.current.replay?.numberOf(stop.stepId) ?? String(event.done + 1)) : '';
        setNotice(
          stop
            ? `Stopped at step ${number} "${stop.name}": ${stop.reason}`
            : `Replayed ${event.done} of ${event.total} ${event.total === 1 ? 'step' : 'steps'}`,
        );
      } else if (event.type === 'ended') setEnded(event.reason);
      else if (event.type === 'recording') {
        setRecording(event.on);
        if (event.on) {
          recordedCount.current = 0;
          setPicking(false);
          latest.current.onRecordingStart();
          setNotice('Recording: act in the page; its steps are added to the test as you go');
        } else setNotice(`Recording stopped: ${stepsAdded(recordedCount.current)}`);
      } else if (event.type === 'recorded') {
        recordedCount.current += event.steps.length - event.replaces;
        latest.current.onRecorded(event);
        const skipped = event.unmapped.map((entry) => `${entry.action} (${entry.reason})`);
        setNotice(
          `Recording: ${stepsAdded(recordedCount.current)}${skipped.length > 0 ? `; not recorded: ${skipped.join(', ')}` : ''}`,
        );
      } else if (event.type === 'picked') {
        setPicked(event);
        setChosen(0);
        setValue(event.element?.name ?? '');
        setPicking(false);
        setNotice(
          event.locators.length > 0
            ? `Picked ${event.element?.role ?? event.element?.tag}: ${event.locators.length} locators`
            : 'No locator finds that element: pick another one',
        );
      }
    };
    ws.onclose = () => {
      setRecording(false);
      setReplaying(false);
      setEnded((reason) => reason ?? 'The live browser was disconnected');
    };
    return () => {
      ws.onclose = null;
      ws.close();
      socket.current = null;
      if (current) URL.revokeObjectURL(current);
      void liveSessionsApi.end(props.projectId, session.id).catch(() => {});
    };
  }, [session, props.projectId]);

  const send = (message: object) => {
    if (socket.current?.readyState === WebSocket.OPEN) socket.current.send(JSON.stringify(message));
  };
  /** A point of the image in the page's CSS pixels. */
  const pagePoint = (event: { clientX: number; clientY: number }) => {
    const box = image.current?.getBoundingClientRect();
    if (!box || !session) return undefined;
    const x = ((event.clientX - box.left) * session.viewport.width) / box.width;
    const y = ((event.clientY - box.top) * session.viewport.height) / box.height;
    const inside = x >= 0 && y >= 0 && x < session.viewport.width && y < session.viewport.height;
    return inside ? { x: Math.round(x), y: Math.round(y) } : undefined;
  };
  const mouse = (kindOf: 'move' | 'down' | 'up', event: React.MouseEvent) => {
    // The page is the replay's until it ends (the service refuses input meanwhile).
    if (replaying) return;
    const point = pagePoint(event);
    if (!point) return;
    if (picking) {
      if (kindOf === 'down') send({ type: 'pick', ...point });
      return;
    }
    if (kindOf === 'move') {
      // Moves at most every 30 ms: the service limits input, and a frame takes longer anyway.
      if (event.timeStamp - lastMove.current < 30) return;
      lastMove.current = event.timeStamp;
    }
    // Without scrolling: the screen moving under the pointer would put the button's release elsewhere.
    if (kindOf === 'down') screen.current?.focus({ preventScroll: true });
    send({
      type: 'mouse',
      event: kindOf,
      ...point,
      button: buttonOf(event.button),
      clickCount: Math.min(Math.max(event.detail, 1), 3),
      modifiers: modifiersOf(event),
    });
  };
  const key = (kindOf: 'down' | 'up', event: React.KeyboardEvent) => {
    // Tab leaves the screencast, so the keyboard is never trapped in it.
    if (event.key === 'Tab' || replaying) return;
    event.preventDefault();
    send({ type: 'key', event: kindOf, key: event.key, code: event.code, modifiers: modifiersOf(event) });
  };

  const locator: LivePickedLocator | undefined = picked?.locators[chosen];
  const insert = () => {
    if (!locator) return;
    const action: Record<string, unknown> = { name: kind, selector: locator.selector };
    if (kind === 'fill' || kind === 'assertText') action.value = value;
    props.onInsert(action);
    setNotice(`Inserted a ${kind} step for ${locator.locator}`);
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="live-browser">
      <div className="live-browser-head">
        <h2 id={`${id}-heading`}>Live browser</h2>
        <button type="button" onClick={props.onClose}>
          Close live browser
        </button>
      </div>
      {startError ? <ErrorMessage error={startError} title="Could not start the live browser" /> : null}
      {ended ? (
        <div className="live-browser-ended" role="status">
          <p>{ended}</p>
          <button type="button" onClick={() => void start(address || props.initialUrl)}>
            Start again
          </button>
        </div>
      ) : null}
      {session && !ended ? (
        <>
          <form
            className="live-browser-bar"
            onSubmit={(event) => {
              event.preventDefault();
              send({ type: 'navigate', url: address });
            }}
          >
            <button type="button" onClick={() => send({ type: 'back' })}>
              Back
            </button>
            <button type="button" onClick={() => send({ type: 'forward' })}>
              Forward
            </button>
            <button type="button" onClick={() => send({ type: 'reload' })}>
              Reload
            </button>
            <label htmlFor={`${id}-address`} className="visually-hidden">
              Address
            </label>
            <input
              id={`${id}-address`}
              type="url"
              value={address}
              onChange={(event) => setAddress(event.target.value)}
            />
            <button type="submit">Go</button>
            <button type="button" aria-pressed={picking} onClick={() => setPicking(!picking)}>
              Pick element
            </button>
            <button
              type="button"
              aria-pressed={recording}
              disabled={replaying}
              onClick={() => send({ type: 'record', on: !recording, goto: props.recordFromPageShown })}
            >
              {recording ? 'Stop recording' : 'Record'}
            </button>
            {props.replay ? (
              <button
                type="button"
                aria-label={`Replay to this step: ${props.replay.name}`}
                disabled={replaying || recording}
                onClick={() => {
                  const target = props.replay;
                  if (!target) return;
                  setReplaying(true);
                  setPicking(false);
                  setNotice(`Replaying the steps up to "${target.name}"`);
                  send({ type: 'replay', ...target.build() });
                }}
              >
                Replay to this step
              </button>
            ) : null}
          </form>
          <p role="status" className="notice">
            {picking ? 'Click an element of the page to pick it.' : notice}
          </p>
          {frame ? (
            <div
              // biome-ignore lint/a11y/noNoninteractiveTabindex: a remote screen (role application) takes keys and clicks for the page, Tab excepted
              tabIndex={0}
              role="application"
              aria-label={`Live browser showing ${title || address}`}
              aria-roledescription="live browser screen"
              ref={screen}
              className={picking ? 'live-browser-screen picking' : 'live-browser-screen'}
              onMouseMove={(event) => mouse('move', event)}
              onMouseDown={(event) => {
                event.preventDefault();
                mouse('down', event);
              }}
              onMouseUp={(event) => mouse('up', event)}
              onContextMenu={(event) => event.preventDefault()}
              onWheel={(event) => {
                const point = pagePoint(event);
                if (point)
                  send({
                    type: 'mouse',
                    event: 'wheel',
                    ...point,
                    deltaX: event.deltaX,
                    deltaY: event.deltaY,
                  });
              }}
              onKeyDown={(event) => key('down', event)}
              onKeyUp={(event) => key('up', event)}
            >
              <img ref={image} src={frame} alt={`The page ${title || address}`} draggable={false} />
            </div>
          ) : (
            <p role="status">Starting the browser…</p>
          )}
          {picked && picked.locators.length > 0 ? (
            <fieldset className="live-browser-pick">
              <legend>Locators for the picked element</legend>
              {picked.locators.map((entry, index) => (
                <label key={entry.selector}>
                  <input
                    type="radio"
                    name={`${id}-locator`}
                    checked={index === chosen}
                    onChange={() => setChosen(index)}
                  />{' '}
                  <code>{entry.locator}</code>{' '}
                  <span className="muted">
                    {entry.matches === 1 ? 'matches 1 element' : `matches ${entry.matches} elements`}
                  </span>
                </label>
              ))}
              <div className="live-browser-insert">
                <label>
                  Step{' '}
                  <select value={kind} onChange={(event) => setKind(event.target.value as StepKind)}>
                    {stepKinds.map((entry) => (
                      <option key={entry.name} value={entry.name}>
                        {entry.label}
                      </option>
                    ))}
                  </select>
                </label>
                {kind === 'fill' || kind === 'assertText' ? (
                  <label>
                    {kind === 'fill' ? 'Value' : 'Text'}{' '}
                    <input value={value} onChange={(event) => setValue(event.target.value)} />
                  </label>
                ) : null}
                <button type="button" onClick={insert} disabled={!locator}>
                  Insert as step
                </button>
              </div>
            </fieldset>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
