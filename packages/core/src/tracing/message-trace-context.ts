import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { HEADER_VALUE_MAX_LENGTH, HEADERS_MAX_COUNT, type MessageHeaders } from '../message';
import type { OpenTelemetry } from './opentelemetry';

const getter: TextMapGetter<MessageHeaders> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => {
    const value = headers[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** Writes only what the broker accepts: a value too long, or a header past the count limit, is left out. */
const setter: TextMapSetter<MessageHeaders> = {
  set: (headers, key, value) => {
    if (value.length > HEADER_VALUE_MAX_LENGTH) return;
    if (!Object.hasOwn(headers, key) && Object.keys(headers).length >= HEADERS_MAX_COUNT) return;
    headers[key] = value;
  },
};

/** The context `headers` carry (W3C `traceparent`, `tracestate`, `baggage`), as the registered propagator reads them. */
export function extractTraceContext(api: OpenTelemetry, headers: MessageHeaders | undefined): Context {
  return headers === undefined ? api.ROOT_CONTEXT : api.propagation.extract(api.ROOT_CONTEXT, headers, getter);
}

/**
 * `headers` with `context` written into them by the registered propagator (a new object when there were none;
 * undefined stays undefined when the propagator writes nothing).
 */
export function injectTraceContext(api: OpenTelemetry, context: Context, headers: MessageHeaders | undefined): MessageHeaders | undefined {
  const target: MessageHeaders = headers ?? {};
  api.propagation.inject(context, target, setter);
  return headers === undefined && Object.keys(target).length === 0 ? undefined : target;
}
