import { formatAgo, formatTimestamp, viewerZone } from '../lib/format.ts';

/**
 * A date-time as the console shows every one (`formatTimestamp`, its zone named), with the exact
 * instant the service sent in `dateTime` and, on hover, in `title` with the zone's full name.
 */
export function Timestamp({
  iso,
  timeZone,
  weekday,
}: {
  iso: string | null | undefined;
  timeZone?: string;
  weekday?: boolean;
}) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={`${iso} (${timeZone ?? viewerZone()})`}>
      {formatTimestamp(iso, { timeZone, weekday: weekday ?? false })}
    </time>
  );
}

/** "3 minutes ago", with the date-time (`formatTimestamp`) and the exact instant on hover. */
export function Ago({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={`${formatTimestamp(iso)} (${iso})`}>
      {formatAgo(iso)}
    </time>
  );
}
