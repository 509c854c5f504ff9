import { type ReactNode, useEffect, useId, useRef } from 'react';

/** A modal dialog (the browser's own: focus trap, Escape closes) titled by its heading. */
export function Dialog(props: { title: string; children: ReactNode; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="form-dialog" aria-labelledby={headingId} onClose={props.onClose}>
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
