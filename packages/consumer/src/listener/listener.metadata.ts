import type { MmmqListenerOptions } from './mmmq-listener.options';

/** Metadata key under which `@MMMQListener` records its options on a method, as an array. */
export const MMMQ_LISTENER_METADATA = Symbol('mmmq:listener');

/** Metadata key under which `@MMMQListener` records its options on a class, as an array. */
export const MMMQ_LISTENER_CLASS_METADATA = Symbol('mmmq:listener-class');

/** Reads the options of every `@MMMQListener` on `method`; a method may carry several, which discovery refuses. */
export function getListenerMetadata(method: Function): readonly MmmqListenerOptions[] {
  return (Reflect.getMetadata(MMMQ_LISTENER_METADATA, method) as MmmqListenerOptions[] | undefined) ?? [];
}

/**
 * Reads the options of every `@MMMQListener` on `type`'s class declaration. A subclass of a decorated class
 * inherits them (it is a listener too), unless it has its own.
 */
export function getClassListenerMetadata(type: Function, own = false): readonly MmmqListenerOptions[] {
  const read = own ? Reflect.getOwnMetadata : Reflect.getMetadata;
  return (read(MMMQ_LISTENER_CLASS_METADATA, type) as MmmqListenerOptions[] | undefined) ?? [];
}
