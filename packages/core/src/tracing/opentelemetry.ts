import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the application installed it. */
export type OpenTelemetry = typeof OpenTelemetryApi;

const API_PACKAGE = '@opentelemetry/api';

/**
 * Loaded once, when this module is first imported: the application starts with tracing available or not, and a
 * broken install fails at start-up rather than on a publish. Undefined when the package is not installed.
 */
const api: OpenTelemetry | undefined = loadApi(require);

/** What a registered tracer provider's proxy hands out while no SDK is registered. */
const noopProvider: unknown = api === undefined ? undefined : new api.ProxyTracerProvider().getDelegate();

let lastDelegate: unknown;
const tracers = new Map<string, OpenTelemetryApi.Tracer>();

/**
 * The API and a tracer named `name` when the application registered a tracer provider (an SDK); otherwise
 * undefined, and the caller does no per-message work at all. Checked on every call, so a provider registered after
 * start-up is used from then on; costs a few property reads when tracing is off.
 */
export function activeTracing(name: string): { api: OpenTelemetry; tracer: OpenTelemetryApi.Tracer } | undefined {
  if (api === undefined) return undefined;
  const provider = api.trace.getTracerProvider() as OpenTelemetryApi.TracerProvider & { getDelegate?: () => unknown };
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
  if (delegate === noopProvider || (delegate as object)?.constructor?.name === 'NoopTracerProvider') return undefined;
  if (delegate !== lastDelegate) {
    // Another provider (tests register one per suite): tracers of the previous one would record into it.
    lastDelegate = delegate;
    tracers.clear();
  }
  let tracer = tracers.get(name);
  if (tracer === undefined) {
    tracer = provider.getTracer(name);
    tracers.set(name, tracer);
  }
  return { api, tracer };
}

/** Exported for its test: `load` stands in for `require`. */
export function loadApi(load: (id: string) => unknown): OpenTelemetry | undefined {
  try {
    return load(API_PACKAGE) as OpenTelemetry;
  } catch (error) {
    // Only the package itself missing turns tracing off; a broken install keeps its own error.
    const code = (error as { code?: unknown }).code;
    if (code === 'MODULE_NOT_FOUND' && ((error as Error).message ?? '').includes(`'${API_PACKAGE}'`)) return undefined;
    throw error;
  }
}
