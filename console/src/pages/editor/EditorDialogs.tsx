import { Dialog } from '../../components/Dialog.tsx';

/** A save refused with 409: someone saved after this editor opened the test. */
export function ConflictDialog(props: { onClose(): void; onReload(): void; onOverwrite(): void }) {
  return (
    <Dialog title="This test changed since you opened it" onClose={props.onClose}>
      <p>Someone saved this test after you opened it. Keep which version?</p>
      <div className="dialog-buttons">
        <button type="button" onClick={props.onReload}>
          Reload their version
        </button>
        <button type="button" onClick={props.onOverwrite}>
          Overwrite with mine
        </button>
      </div>
    </Dialog>
  );
}

/** Leaving the editor (a link, back) with unsaved changes. */
export function LeaveDialog(props: { testName: string; onLeave(): void; onStay(): void }) {
  return (
    <Dialog title="Leave without saving?" onClose={props.onStay}>
      <p>Your changes to {props.testName} are not saved.</p>
      <div className="dialog-buttons">
        <button type="button" className="danger" onClick={props.onLeave}>
          Leave
        </button>
        <button type="button" onClick={props.onStay}>
          Stay
        </button>
      </div>
    </Dialog>
  );
}
