import { useRouteError } from 'react-router';
import { ErrorMessage } from '../components/ErrorMessage.tsx';

/**
 * What a route shows when it cannot render: most often a page whose code could not be loaded
 * (the network dropped, or the console was updated and the old chunk is gone). Reloading
 * fetches the current console.
 */
export function RouteError() {
  const error = useRouteError();
  return (
    <div className="route-error">
      <ErrorMessage error={error} title="This page could not be opened" />
      <p>
        The console may have been updated since this tab opened it.{' '}
        <button type="button" onClick={() => window.location.reload()}>
          Reload the console
        </button>
      </p>
    </div>
  );
}
