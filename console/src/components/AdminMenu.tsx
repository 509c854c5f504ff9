import { useEffect, useId, useRef, useState } from 'react';
import { NavLink, useLocation } from 'react-router';

/** One administration page: the link's name is also its accessible name. */
export interface AdminLink {
  path: string;
  label: string;
}

/**
 * The administration pages behind one "Administration" disclosure button, so that the header
 * fits on one line. A disclosure (not an ARIA menu): the links stay plain links in the tab
 * order once open. Escape or a click elsewhere closes it and gives focus back to the button;
 * following a link closes it.
 */
export function AdminMenu(props: { projectId: string; links: readonly AdminLink[] }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  const container = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const location = useLocation();
  const current = location.pathname.includes(`/projects/${props.projectId}/admin/`);

  // Navigating (by a link here or anywhere else) closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect runs on every location change on purpose
  useEffect(() => setOpen(false), [location.pathname]);

  useEffect(() => {
    if (!open) return;
    // A click elsewhere, or focus moving out of the open list (Tab), closes it.
    const onOutside = (event: Event) => {
      if (!container.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onOutside);
    document.addEventListener('focusin', onOutside);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onOutside);
      document.removeEventListener('focusin', onOutside);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  return (
    <div className="admin-menu" ref={container}>
      <button
        type="button"
        ref={button}
        aria-expanded={open}
        aria-controls={listId}
        className={current ? 'active' : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        Administration <span aria-hidden="true">▾</span>
      </button>
      <ul id={listId} hidden={!open}>
        {props.links.map((link) => (
          <li key={link.path}>
            <NavLink to={`/projects/${props.projectId}/admin/${link.path}`} onClick={() => setOpen(false)}>
              {link.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </div>
  );
}
