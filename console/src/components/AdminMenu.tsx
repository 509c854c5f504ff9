import { NavLink, useLocation } from 'react-router';
import { useDisclosure } from './disclosure.ts';
import './AdminMenu.css';

/** One administration page: the link's name is also its accessible name. */
export interface AdminLink {
  path: string;
  label: string;
}

/** The administration pages behind one "Administration" disclosure button, so that the header fits on one line. */
export function AdminMenu(props: { projectId: string; links: readonly AdminLink[] }) {
  const disclosure = useDisclosure();
  const location = useLocation();
  const current = location.pathname.includes(`/projects/${props.projectId}/admin/`);
  return (
    <div className="admin-menu" ref={disclosure.containerRef}>
      <button {...disclosure.buttonProps} className={current ? 'active' : undefined}>
        Administration <span aria-hidden="true">▾</span>
      </button>
      <ul {...disclosure.panelProps}>
        {props.links.map((link) => (
          <li key={link.path}>
            <NavLink to={`/projects/${props.projectId}/admin/${link.path}`} onClick={disclosure.close}>
              {link.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </div>
  );
}
