/** Where a push stands among the pushes in flight of its subscription (dispatchers with `maxInFlight` > 1). */
export interface PushOrder {
  session: string;
  sequence: number;
}
