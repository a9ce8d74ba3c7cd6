import { DispatcherDefinition } from './dispatcher-definition';
import { ResolvedDeliveryOptions } from './delivery.options';

/** Dispatch settings after defaults and validation. */
export interface ResolvedDispatchOptions {
  /** Dispatchers given in code; they are added to (or replace entries of) `dispatchers.json` at boot. */
  dispatchers: DispatcherDefinition[];
  delivery: ResolvedDeliveryOptions;
}

export const MMMQ_DISPATCH_OPTIONS = Symbol('MMMQ_DISPATCH_OPTIONS');
