/**
 * A lease names one delivery of one message: `{topic}:{offset}:{deliveryCount}`. The count fences it — the next
 * delivery of the same message has a new token, so a late ack of an expired lease cannot settle a message another
 * member now holds. Clients treat it as opaque. Topic names never contain `:`.
 */
export interface LeaseRef {
  topic: string;
  offset: number;
  /** The delivery this lease is; undefined when settling by offset (not fenced). */
  delivery?: number;
}

export function leaseToken(topic: string, offset: number, delivery: number): string {
  return `${topic}:${offset}:${delivery}`;
}

const TOKEN = /^([^:]{1,249}):(\d{1,15}):(\d{1,9})$/;

/** The lease a token names, or undefined when it is not one. */
export function parseLeaseToken(token: string): LeaseRef | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  return { topic: match[1], offset: Number(match[2]), delivery: Number(match[3]) };
}
