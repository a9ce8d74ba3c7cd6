import type { BacklogOverflow, StartFrom } from '@mmmq/core';

/** The JSON shape of a definition as the dispatcher API shows it: `signed` instead of the secret. */
export type HostJson = { protocol: string; address: string; port: number };

/** One host is shown as `host`, several as `hosts`, none (pull only) as neither; patterns likewise. */
export interface DispatcherDefinitionJson {
  consumerId: string;
  host?: HostJson;
  hosts?: HostJson[];
  pattern?: string;
  patterns?: string[];
  startFrom: StartFrom;
  batchSize: number;
  maxInFlight: number;
  /** Shown only when false: the pushes in flight are independent (absent: true, numbered and settled in order). */
  ordered?: false;
  maxDeliveries: number;
  ackTimeoutMs: number;
  exclusive: boolean;
  /** When set: the first this many live members receive, the others wait as ordered backups. */
  maxActiveMembers?: number;
  /** When set: the most live members the consumer admits. */
  maxMembers?: number;
  /** The selector's text, when there is one. */
  selector?: string;
  /** With `backlogOverflow`, when the dispatcher has a backlog limit. */
  maxBacklog?: number;
  backlogOverflow?: BacklogOverflow;
  /** Present (true) when the pushes are signed. */
  signed?: true;
}
