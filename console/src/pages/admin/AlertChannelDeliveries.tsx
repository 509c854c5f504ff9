import type { AlertChannel, AlertDelivery } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { alertDeliveriesKey, alertsApi } from '../../api/alerts.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { Timestamp } from '../../components/Timestamp.tsx';

/** Deliveries shown per channel; the service keeps more. */
const shown = 5;

const statusLabels: Record<AlertDelivery['status'], string> = {
  pending: 'Retrying',
  succeeded: 'Delivered',
  failed: 'Not delivered',
};

/**
 * A channel's latest alerts and how their attempts went: delivered, retrying (with when the
 * next attempt is due) or given up, with the last error the receiver or relay answered.
 */
export function AlertChannelDeliveries({ projectId, channel }: { projectId: string; channel: AlertChannel }) {
  const deliveries = useQuery({
    queryKey: alertDeliveriesKey(projectId, channel.id),
    queryFn: () => alertsApi.deliveries(projectId, channel.id),
    // A retrying delivery changes on its own: look again while one is pending.
    refetchInterval: (query) =>
      query.state.data?.data.some((entry) => entry.status === 'pending') ? 5_000 : false,
  });
  if (deliveries.error) return <ErrorMessage error={deliveries.error} />;
  const rows = (deliveries.data?.data ?? []).slice(0, shown);
  return (
    <section aria-label={`Latest alerts of ${channel.name}`}>
      <h3>{channel.name}</h3>
      {deliveries.data && rows.length === 0 ? (
        <p className="muted">No alert sent yet: one is sent when a run it hears fails or recovers.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Latest alerts of {channel.name}</caption>
          <thead>
            <tr>
              <th scope="col">Recorded</th>
              <th scope="col">Run</th>
              <th scope="col">Alert</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last attempt</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((delivery) => (
              <tr key={delivery.id}>
                <td>
                  <Timestamp iso={delivery.createdAt} />
                </td>
                <td>
                  <Link to={`/projects/${projectId}/runs/${delivery.runId}`}>
                    {delivery.runId.slice(0, 8)}
                  </Link>
                </td>
                <td>{delivery.event === 'failed' ? 'Run failed' : 'Recovered'}</td>
                <td>
                  {statusLabels[delivery.status]}
                  {delivery.status === 'pending' && delivery.nextAttemptAt ? (
                    <>
                      {' '}
                      (next attempt <Timestamp iso={delivery.nextAttemptAt} />)
                    </>
                  ) : null}
                </td>
                <td>{delivery.attempts}</td>
                <td>
                  <Timestamp iso={delivery.lastAttemptAt} />
                </td>
                <td>{delivery.lastError ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
