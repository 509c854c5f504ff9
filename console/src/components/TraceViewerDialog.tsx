import { useEffect, useRef } from 'react';
import { traceViewerUrl } from '../api/endpoints.ts';
import './TraceViewerDialog.css';

/**
 * Playwright's own trace viewer in a modal dialog, on one test's trace. The viewer is loaded
 * only now (an iframe), so it costs nothing until a trace is opened.
 */
export function TraceViewerDialog(props: {
  runId: string;
  artifactKey: string;
  testName: string;
  onClose(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="trace-dialog"
      aria-label={`Trace of ${props.testName}`}
      onClose={props.onClose}
    >
      <div className="trace-bar">
        <strong>Trace of {props.testName}</strong>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close trace
        </button>
      </div>
      <iframe
        title={`Playwright trace viewer: ${props.testName}`}
        src={traceViewerUrl(props.runId, props.artifactKey)}
      />
    </dialog>
  );
}
