import type { MmmqListenerOptions } from './mmmq-listener.options';

/** Metadata key under which `@MMMQListener` records its options on a method, as an array. */
export const MMMQ_LISTENER_METADATA = Symbol('mmmq:listener');

/** Reads the options of every `@MMMQListener` on `method`; a method may carry several, which discovery refuses. */
export function getListenerMetadata(method: Function): readonly MmmqListenerOptions[] {
  return (Reflect.getMetadata(MMMQ_LISTENER_METADATA, method) as MmmqListenerOptions[] | undefined) ?? [];
}
