import type { ContentType } from './content-type';
import type { MmmqListenerOptions } from './mmmq-listener.options';

/** A listener as found by discovery, before names, consumer ids and configuration are applied. */
export interface DiscoveredListener {
  /** `Class.method`, for log lines and error messages. */
  where: string;
  /** The name used when the listener does not set one. */
  defaultName: string;
  /** What the decorator or the class says; `pattern` is not validated yet. */
  options: MmmqListenerOptions;
  contentType: ContentType;
  /** Calls the handler on its instance, through its Nest pipes, guards, interceptors and filters. */
  handle(content: unknown, context: unknown): Promise<unknown>;
}
