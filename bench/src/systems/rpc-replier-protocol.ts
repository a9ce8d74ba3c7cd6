/** What the replier serves: its one `@MessagePattern` and the transport it receives on. */
export type RpcReplierSettings = {
  pattern: string;
  /** Requests the replier may handle at once (MMMQ: the listener's `concurrency`; RMQ: `prefetchCount`). */
  concurrency: number;
} & (
  | {
      transport: 'mmmq';
      /** The standalone broker's HTTP URL. */
      url: string;
      app: string;
      /** Where the broker pushes to (the transport's own push server). */
      port: number;
    }
  | {
      transport: 'rmq';
      /** The AMQP URL. */
      url: string;
      queue: string;
      /** Nest RMQ options beyond its defaults (queue type, persistent messages). */
      rmq?: Record<string, unknown>;
    }
);

/** The replier's one message to the bench over the child's IPC channel. */
export type FromRpcReplier = { kind: 'ready' };
