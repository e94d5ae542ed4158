/**
 * What the cluster primary and its HTTP workers say to each other over the IPC channel
 * (process.send). prom-client's own metric requests share the channel under their own types.
 */
export type ClusterMessage =
  /** Worker → primary: render the metrics of every worker (AggregatorRegistry). */
  | { type: 'memsvc:metrics-req'; id: number }
  /** Primary → worker: the aggregated exposition, or why it could not be built. */
  | { type: 'memsvc:metrics-res'; id: number; text?: string; error?: string }
  /** Worker → primary → the other workers: a read-your-writes fence (see ReadRouter.wrote). */
  | { type: 'memsvc:fence'; key: string; lsn: string; expires: number };

export function isClusterMessage(m: unknown): m is ClusterMessage {
  return typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string' && (m as { type: string }).type.startsWith('memsvc:');
}
