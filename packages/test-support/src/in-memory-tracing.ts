import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { waitFor } from './wait-for';

/** The OpenTelemetry SDK registered globally, as an application registers it, exporting to memory. */
export interface InMemoryTracing {
  /** Every span ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The ended spans named `name`, once there are `count` of them (within the deadline). */
  waitForSpans(name: string, count?: number): Promise<ReadableSpan[]>;
  /** Runs `work` inside a span named `name` (a request handler's, say), ended when `work` settles. */
  inSpan<T>(name: string, work: () => Promise<T>): Promise<T>;
  reset(): void;
  /** Unregisters the provider, the propagators and the context manager: tracing is off again. */
  close(): Promise<void>;
}

/** Registers a tracer provider, the W3C trace context and baggage propagators and an async context manager. */
export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
  return {
    spans: () => exporter.getFinishedSpans(),
    async waitForSpans(name, count = 1) {
      await waitFor(() => named(name).length >= count, {
        message: () => `${count} span(s) named "${name}" (ended so far: ${describe(exporter.getFinishedSpans())})`,
      });
      return named(name);
    },
    inSpan: (name, work) => trace.getTracer('test').startActiveSpan(name, (span) => work().finally(() => span.end())),
    reset: () => exporter.reset(),
    async close() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The id of the span current where this is called, if any. */
export function activeSpanId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().spanId;
}

function describe(spans: ReadableSpan[]): string {
  return spans.map((span) => span.name).join(', ') || 'none';
}
