/**
 * What a message's content is declared to be: a class (a class-validator DTO, described by its JSON Schema), a JSON
 * primitive, an array, or anything (no schema). The consumer's listener content types have this shape.
 */
export type AsyncApiPayload =
  { kind: 'any' } | { kind: 'primitive'; name: 'string' | 'number' | 'boolean' } | { kind: 'array' } | { kind: 'class'; type: Function };

/**
 * One thing an application does with messages, as the AsyncAPI document describes it: a listener (`receive`) of a
 * topic pattern, or a topic a producer declares it sends to (`send`).
 */
export interface AsyncApiOperation {
  action: 'receive' | 'send';
  /** The topic, or for a listener its pattern (`order.*`, `news.**`). */
  address: string;
  /** Who declares it, e.g. `OrderListener.onCreated`, `@MessagePattern("sum")`, `MmmqProducerModule events`. */
  source: string;
  payload: AsyncApiPayload;
  /**
   * True: the messages are requests (`mmmq-reply-to`, `mmmq-correlation-id`) and the handler's result is the reply;
   * a `@MessagePattern` handler. A plain listener answers requests too, but is described as receiving events.
   */
  replies?: boolean;
  /** The listener's dispatcher id on the broker. */
  consumerId?: string;
  /** When the listener's messages count as settled (`auto`, `manual`, `dupsOk`, `none`). */
  ackMode?: string;
  /** How the listener's messages reach it: `push`, `pull`, `in-process` or another transport's name. */
  delivery?: string;
  /** Only messages matching this selector reach the listener. */
  selector?: string;
}
