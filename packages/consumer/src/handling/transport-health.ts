/** What the health indicator reports of the transport the consumer receives through. */
export interface TransportHealth {
  /** The transport's name: `rabbitmq`, `in-memory`. */
  name: string;
  /** False while its subscriber cannot receive (its connection dropped and it is reconnecting), and after shutdown began. */
  receiving: boolean;
  /** When `receiving` took its value, ISO 8601. */
  since: string;
  /** While not receiving: why, with the last error. */
  reason?: string;
}
