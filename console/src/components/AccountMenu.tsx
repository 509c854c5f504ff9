import { NavLink } from 'react-router';
import { useDisclosure } from './disclosure.ts';
import './AccountMenu.css';

/**
 * The signed-in user behind one button (their email), with their role, organization and
 * "Sign out" in its panel: the header keeps its line for the switchers and the navigation.
 */
export function AccountMenu(props: {
  email: string | undefined;
  role: string | undefined;
  organization: string | undefined;
  /** Where "Change password" opens (the current project's account page). */
  passwordPath: string;
  onSignOut: () => void;
}) {
  const disclosure = useDisclosure();
  return (
    <div className="account-menu" ref={disclosure.containerRef}>
      <button {...disclosure.buttonProps} aria-label={`Account: ${props.email ?? ''}`} title={props.email}>
        <span className="user-email">{props.email ?? '…'}</span> <span aria-hidden="true">▾</span>
      </button>
      <div {...disclosure.panelProps} className="account-panel">
        <p>
          Signed in as <strong>{props.email}</strong> ({props.role})
        </p>
        {props.organization ? <p className="muted">{props.organization}</p> : null}
        <NavLink to={props.passwordPath} onClick={disclosure.close}>
          Change password
        </NavLink>
        <button type="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </div>
    </div>
  );
}
