import { type ReactNode, useEffect, useId, useRef } from 'react';
import './Dialog.css';

/**
 * A modal dialog (the browser's own: focus trap, Escape closes) titled by its heading. When it
 * goes (closed, or removed after its action succeeded), focus goes back to the control that
 * opened it rather than dropping to <body>.
 */
export function Dialog(props: { title: string; children: ReactNode; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => {
      // Only when nothing else took focus meanwhile (a page the action navigated to may have).
      const lost = !document.activeElement || document.activeElement === document.body;
      if ((lost || element?.contains(document.activeElement)) && opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog ref={dialog} className="form-dialog" aria-labelledby={headingId} onClose={props.onClose}>
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
