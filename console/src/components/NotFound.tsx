import { Link } from 'react-router';
import './NotFound.css';

/** Unknown pages and runs that do not exist (or belong to another project). */
export function NotFoundPage({ what = 'Page' }: { what?: string }) {
  return (
    <div className="not-found">
      <h1>{what} not found</h1>
      <p>The address may be wrong, or it belongs to a project you cannot see.</p>
      <Link to="/">Back to the console</Link>
    </div>
  );
}
